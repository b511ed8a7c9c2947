//! Time axes of the timeline pictures: ticks at round steps.

/// A time axis of `span` seconds over `len` pixels from `x0`, at `y`:
/// about eight ticks at round steps (1, 2 or 5 times a power of ten).
pub(crate) fn time_axis(
    w: &mut dyn std::io::Write,
    (t0, t1): (f64, f64),
    x0: f64,
    len: f64,
    y: f64,
) -> std::io::Result<()> {
    writeln!(
        w,
        r##"<line x1="{x0}" y1="{y}" x2="{}" y2="{y}" stroke="#444444"/>"##,
        x0 + len
    )?;
    let span = t1 - t0;
    if !(span > 0.0 && span.is_finite()) {
        return Ok(());
    }
    let step = nice_step(span / 8.0);
    let mut t = (t0 / step).ceil() * step;
    // At most a few dozen ticks whatever the rounding.
    for _ in 0..32 {
        if t > t1 {
            break;
        }
        let x = x0 + (t - t0) / span * len;
        writeln!(
            w,
            r##"<line x1="{x:.1}" y1="{y}" x2="{x:.1}" y2="{}" stroke="#444444"/><text x="{x:.1}" y="{}" font-size="10" font-family="sans-serif" text-anchor="middle">{} s</text>"##,
            y + 4.0,
            y + 15.0,
            crate::report::numfmt::human::seconds_apart(t, step)
        )?;
        t += step;
    }
    Ok(())
}

/// The round step (1, 2 or 5 times a power of ten) at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_axes_tick_at_round_steps() {
        assert_eq!(nice_step(0.13), 0.2);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(0.0007), 0.001);
        let mut out = Vec::new();
        time_axis(&mut out, (0.05, 1.0), 60.0, 1130.0, 100.0).unwrap();
        let text = String::from_utf8(out).unwrap();
        // 0.2, 0.4, 0.6, 0.8, 1.0 (the first tick at or after the start).
        assert_eq!(text.matches("<text").count(), 5, "{text}");
        assert!(
            text.contains(">0.2000 s<") && text.contains(">1.0000 s<"),
            "{text}"
        );
    }
}
