//! Number formatting in one place.
