//! Colours shared by the pictures and the legends the HTML pages write
//! beside them: one per MPI function type, one per traced function.

/// Fill colour of an MPI function type in the comm timeline: a hue per
/// type, spread around the hue circle.
pub fn comm_type_colour(kind: i64) -> String {
    format!("hsl({},70%,50%)", (kind * 47).rem_euclid(360))
}

/// Hue (degrees) of function `f` of a trace timeline: the golden angle
/// apart, so neighbouring functions get distinct colours.
pub fn function_hue(f: u32) -> f64 {
    (f as f64 * 137.508).rem_euclid(360.0)
}
