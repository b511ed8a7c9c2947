//! AMReX bl_prof databases.
