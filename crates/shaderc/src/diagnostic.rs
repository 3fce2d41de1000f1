//! Rendering diagnostics at a bounded cost.
//!
//! naga renders an error against the whole source with codespan, which
//! takes time quadratic in the length of a line: a 10 MB file of one line
//! takes minutes to report its first bad character. Sources up to
//! [`FULL_RENDER_LIMIT`] bytes keep naga's rendering; larger ones get the
//! same shape (message, `file:line:col`, the line with a caret under each
//! label) with each shown line cut to a window around its label, so any
//! error renders in time linear in the source size.

use std::fmt::Write as _;

/// Largest source rendered by naga's own renderer.
pub(crate) const FULL_RENDER_LIMIT: usize = 64 << 10;

/// Bytes of a line shown on each side of a label.
const WINDOW: usize = 60;

/// `full()` when the source is small, else the bounded rendering of
/// `message` with `labels` (byte spans into `source`).
pub(crate) fn render<'l>(
    source: &str,
    file: &str,
    message: &str,
    labels: impl IntoIterator<Item = (naga::Span, &'l str)>,
    full: impl FnOnce() -> String,
) -> String {
    if source.len() <= FULL_RENDER_LIMIT {
        return full();
    }
    let mut out = format!("error: {message}\n");
    for (span, label) in labels {
        let Some(at) = span.to_range().map(|r| r.start) else {
            continue;
        };
        if at > source.len() {
            continue;
        }
        let line_start = source[..at].rfind('\n').map_or(0, |p| p + 1);
        let line_end = source[at..].find('\n').map_or(source.len(), |p| at + p);
        let line_number = source[..line_start].matches('\n').count() + 1;
        let from = floor_char(source, at.saturating_sub(WINDOW).max(line_start));
        let to = floor_char(source, (at + WINDOW).min(line_end));
        let shown: String = source[from..to]
            .chars()
            .map(|c| if c.is_control() { '\u{fffd}' } else { c })
            .collect();
        let caret = source[from..at].chars().count();
        let _ = writeln!(
            out,
            "  ┌─ {file}:{line_number}:{}\n  │\n  │ {}{shown}{}\n  │ {}^ {label}",
            at - line_start + 1,
            if from > line_start { "…" } else { "" },
            if to < line_end { "…" } else { "" },
            " ".repeat(caret + usize::from(from > line_start)),
        );
    }
    out
}

/// The largest char boundary at or below `index`.
fn floor_char(s: &str, mut index: usize) -> usize {
    while !s.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sources_keep_the_full_rendering() {
        let got = render("abc", "f.wgsl", "m", [], || "full".to_string());
        assert_eq!(got, "full");
    }

    #[test]
    fn large_sources_show_a_window_of_the_line() {
        let mut source = "x".repeat(FULL_RENDER_LIMIT * 2);
        source.push('\u{1}');
        source.push_str("tail\nnext line");
        let at = FULL_RENDER_LIMIT as u32 * 2;
        let got = render(
            &source,
            "f.wgsl",
            "bad character",
            [(naga::Span::new(at, at + 1), "here")],
            || unreachable!("the full renderer must not run"),
        );
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines[0], "error: bad character");
        assert_eq!(lines[1], format!("  ┌─ f.wgsl:1:{}", at + 1));
        assert_eq!(lines[3], format!("  │ …{}\u{fffd}tail", "x".repeat(WINDOW)));
        assert_eq!(lines[4], format!("  │ {}^ here", " ".repeat(WINDOW + 1)));
    }
}
