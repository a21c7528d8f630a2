//! Grouped bar chart as SVG text: one group per category, one bar per series (e.g. SpMV speedup per
//! matrix per ordering), with y-axis ticks, an optional horizontal reference line (e.g. at 1.0, "no
//! speedup") and a legend. Plain SVG 1.1, generic font families only, so no font files are needed.
//! Cost: `O(categories · series)`. Called by [`crate::bar_chart_svg`].

use crate::PlotError;
use std::fmt::Write as _;
use std::path::Path;

/// Fill colours of the first series (Okabe-Ito, readable with colour-vision deficiencies); the
/// series after them get [`series_colour`]'s generated hues, so that no two series share a colour.
const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
];
const MARGIN_LEFT: f64 = 70.0;
const MARGIN_TOP: f64 = 40.0;
const MARGIN_BOTTOM: f64 = 90.0;
const LEGEND_WIDTH: f64 = 170.0;
/// Share of a group's width covered by its bars.
const GROUP_FILL: f64 = 0.8;

/// Options of [`bar_chart_svg`].
#[derive(Debug, Clone, PartialEq)]
pub struct BarChartOptions {
    /// Image width in pixels (SVG user units). Default 900.
    pub width_px: u32,
    /// Image height in pixels. Default 450.
    pub height_px: u32,
    /// A dashed horizontal line at this value (e.g. `Some(1.0)` for speedups). Default `None`.
    pub reference_line: Option<f64>,
}

impl Default for BarChartOptions {
    fn default() -> Self {
        Self {
            width_px: 900,
            height_px: 450,
            reference_line: None,
        }
    }
}

/// The SVG text of a grouped bar chart: `series[s].1[c]` is the bar of series `s` in category `c`.
///
/// # Errors
/// [`PlotError::SeriesLength`] when a series does not have one value per category,
/// [`PlotError::NotFinite`] for a NaN or infinite value (or reference line, reported as category
/// `usize::MAX` of series `"reference line"`).
pub fn bar_chart_svg_string(
    title: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    y_label: &str,
    options: &BarChartOptions,
) -> Result<String, PlotError> {
    check_series(categories, series, options.reference_line)?;
    let frame = Frame::new(series, options);
    let mut svg = String::new();
    let (w, h) = (options.width_px, options.height_px);
    // Writing to a String cannot fail: `let _ =` on each write! is sound.
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="24" text-anchor="middle" font-size="16">{}</text>"#,
        f64::from(w) / 2.0,
        escape(title)
    );
    frame.y_axis(&mut svg, y_label);
    frame.bars(&mut svg, categories, series);
    if let Some(r) = options.reference_line {
        frame.reference_line(&mut svg, r);
    }
    frame.legend(&mut svg, series);
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// Writes [`bar_chart_svg_string`]'s chart to `path`, atomically (a temporary file in the same
/// directory renamed over `path`; `-` writes to stdout).
///
/// # Errors
/// As [`bar_chart_svg_string`], and [`PlotError::Output`] when writing fails.
pub fn bar_chart_svg(
    title: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    y_label: &str,
    path: &Path,
    options: &BarChartOptions,
) -> Result<(), PlotError> {
    let svg = bar_chart_svg_string(title, categories, series, y_label, options)?;
    spmv_reorder_mtx::write_atomically(path, |out| out.write_all(svg.as_bytes()))?;
    Ok(())
}

fn check_series(
    categories: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
) -> Result<(), PlotError> {
    for (name, values) in series {
        if values.len() != categories.len() {
            return Err(PlotError::SeriesLength {
                series: name.clone(),
                expected: categories.len(),
                found: values.len(),
            });
        }
        if let Some((category, &value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(PlotError::NotFinite {
                series: name.clone(),
                category,
                value,
            });
        }
    }
    match reference {
        Some(value) if !value.is_finite() => Err(PlotError::NotFinite {
            series: "reference line".to_owned(),
            category: usize::MAX,
            value,
        }),
        _ => Ok(()),
    }
}

/// The plot area and the value-to-pixel mapping of the y axis.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    y_min: f64,
    y_max: f64,
    step: f64,
}

impl Frame {
    fn new(series: &[(String, Vec<f64>)], options: &BarChartOptions) -> Self {
        let values = series.iter().flat_map(|(_, v)| v.iter().copied());
        let (lo, hi) = values
            .chain(options.reference_line)
            .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let hi = if hi == lo { lo + 1.0 } else { hi };
        let step = nice_step((hi - lo) / 5.0);
        Self {
            left: MARGIN_LEFT,
            right: (f64::from(options.width_px) - LEGEND_WIDTH).max(MARGIN_LEFT + 1.0),
            top: MARGIN_TOP,
            bottom: (f64::from(options.height_px) - MARGIN_BOTTOM).max(MARGIN_TOP + 1.0),
            y_min: (lo / step).floor() * step,
            y_max: (hi / step).ceil() * step,
            step,
        }
    }

    /// The pixel row of value `v`.
    fn y(&self, v: f64) -> f64 {
        self.bottom - (v - self.y_min) / (self.y_max - self.y_min) * (self.bottom - self.top)
    }

    fn y_axis(&self, svg: &mut String, label: &str) {
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        let ticks = ((self.y_max - self.y_min) / self.step).round() as usize;
        for k in 0..=ticks {
            let v = self.y_min + k as f64 * self.step;
            let y = self.y(v);
            let _ = writeln!(
                svg,
                r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.decimals$}</text>"##,
                self.left,
                self.right,
                self.left - 6.0,
                y + 4.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<line x1="{l:.1}" y1="{t:.1}" x2="{l:.1}" y2="{b:.1}" stroke="black"/><line x1="{l:.1}" y1="{z:.1}" x2="{r:.1}" y2="{z:.1}" stroke="black"/>"#,
            l = self.left,
            t = self.top,
            b = self.bottom,
            r = self.right,
            z = self.y(0.0)
        );
        let my = (self.top + self.bottom) / 2.0;
        let _ = writeln!(
            svg,
            r#"<text x="16" y="{my:.1}" text-anchor="middle" transform="rotate(-90 16 {my:.1})">{}</text>"#,
            escape(label)
        );
    }

    fn bars(&self, svg: &mut String, categories: &[String], series: &[(String, Vec<f64>)]) {
        let group = (self.right - self.left) / categories.len().max(1) as f64;
        let bar = group * GROUP_FILL / series.len().max(1) as f64;
        for (c, category) in categories.iter().enumerate() {
            let x0 = self.left + c as f64 * group + group * (1.0 - GROUP_FILL) / 2.0;
            for (s, (name, values)) in series.iter().enumerate() {
                let (ya, yb) = (self.y(values[c]), self.y(0.0));
                let _ = writeln!(
                    svg,
                    r#"<rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}, {}: {}</title></rect>"#,
                    x0 + s as f64 * bar,
                    ya.min(yb),
                    bar,
                    (ya - yb).abs(),
                    series_colour(s),
                    escape(name),
                    escape(category),
                    values[c]
                );
            }
            let (lx, ly) = (x0 + group * GROUP_FILL / 2.0, self.bottom + 14.0);
            let _ = writeln!(
                svg,
                r#"<text x="{lx:.1}" y="{ly:.1}" text-anchor="end" transform="rotate(-35 {lx:.1} {ly:.1})">{}</text>"#,
                escape(category)
            );
        }
    }

    fn reference_line(&self, svg: &mut String, value: f64) {
        let _ = writeln!(
            svg,
            r#"<line class="reference" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="black" stroke-dasharray="6 4"/>"#,
            self.left,
            self.right,
            y = self.y(value)
        );
    }

    fn legend(&self, svg: &mut String, series: &[(String, Vec<f64>)]) {
        let x = self.right + 16.0;
        for (s, (name, _)) in series.iter().enumerate() {
            let y = self.top + 20.0 * s as f64;
            let _ = writeln!(
                svg,
                r#"<rect class="legend" x="{x:.1}" y="{y:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                series_colour(s),
                x + 18.0,
                y + 10.0,
                escape(name)
            );
        }
    }
}

/// The smallest 1, 2 or 5 times a power of ten that is at least `raw` (a tick step).
/// The fill colour of series `s`: [`PALETTE`], then hues a golden angle apart (an irrational
/// turn, so they never repeat) at two lightnesses, as `#RRGGBB`.
fn series_colour(s: usize) -> String {
    if let Some(c) = PALETTE.get(s) {
        return (*c).to_string();
    }
    let k = (s - PALETTE.len()) as f64;
    let hue = (k * 137.507_764 + 20.0) % 360.0;
    let lightness = if s.is_multiple_of(2) { 0.38 } else { 0.58 };
    let (r, g, b) = hsl_to_rgb(hue, 0.65, lightness);
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// HSL (hue in degrees, saturation and lightness in `0..=1`) to 8-bit RGB.
fn hsl_to_rgb(hue: f64, saturation: f64, lightness: f64) -> (u8, u8, u8) {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let h = hue / 60.0;
    let x = chroma * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = lightness - chroma / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
}

fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// `text` with the five XML special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Checks that every `<tag` is closed, in order (a small well-formedness check, no parser).
    fn assert_balanced(svg: &str) {
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let close = open + rest[open..].find('>').expect("unclosed tag");
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap());
            }
            rest = &rest[close + 1..];
        }
        assert!(stack.is_empty(), "unclosed {stack:?}");
    }

    #[test]
    fn one_bar_per_value_labels_escaped_reference_line() {
        let categories = names(&["bcsstk13", "a<b & \"c\""]);
        let series = vec![
            ("rcm".to_string(), vec![1.2, 0.9]),
            ("gorder".to_string(), vec![1.5, 1.1]),
            ("lk'tsp".to_string(), vec![1.7, 1.3]),
        ];
        let options = BarChartOptions {
            reference_line: Some(1.0),
            ..BarChartOptions::default()
        };
        let svg =
            bar_chart_svg_string("Speedup", &categories, &series, "speedup", &options).unwrap();
        assert_balanced(&svg);
        assert_eq!(svg.matches(r#"<rect class="bar""#).count(), 6);
        assert_eq!(svg.matches(r#"<rect class="legend""#).count(), 3);
        assert_eq!(svg.matches(r#"class="reference""#).count(), 1);
        assert!(svg.contains("a&lt;b &amp; &quot;c&quot;"));
        assert!(svg.contains("lk&apos;tsp"));
        assert!(!svg.contains("a<b"));
        assert!(svg.contains(">Speedup</text>") && svg.contains(">speedup</text>"));
        // Ticks 0.0, 0.5, …, 2.0 on a 0..1.7 range.
        for tick in ["0.0", "0.5", "1.0", "1.5", "2.0"] {
            assert!(svg.contains(&format!(">{tick}</text>")), "tick {tick}");
        }
    }

    #[test]
    fn taller_value_gives_taller_bar_and_negative_bars_hang_down() {
        let categories = names(&["x", "y"]);
        let series = vec![("s".to_string(), vec![2.0, -1.0])];
        let svg = bar_chart_svg_string("t", &categories, &series, "v", &BarChartOptions::default())
            .unwrap();
        let heights: Vec<f64> = svg
            .lines()
            .filter(|l| l.starts_with(r#"<rect class="bar""#))
            .map(|l| {
                let h = &l[l.find("height=\"").unwrap() + 8..];
                h[..h.find('"').unwrap()].parse().unwrap()
            })
            .collect();
        assert_eq!(heights.len(), 2);
        assert!((heights[0] - 2.0 * heights[1]).abs() < 0.2, "{heights:?}");
    }

    #[test]
    fn bad_series_are_errors() {
        let categories = names(&["a", "b"]);
        let short = vec![("s".to_string(), vec![1.0])];
        let e = bar_chart_svg_string("t", &categories, &short, "y", &BarChartOptions::default());
        assert!(matches!(
            e,
            Err(PlotError::SeriesLength {
                expected: 2,
                found: 1,
                ..
            })
        ));
        let nan = vec![("s".to_string(), vec![1.0, f64::NAN])];
        let e = bar_chart_svg_string("t", &categories, &nan, "y", &BarChartOptions::default());
        assert!(matches!(e, Err(PlotError::NotFinite { category: 1, .. })));
    }

    #[test]
    fn empty_chart_and_file_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.svg");
        bar_chart_svg("nothing", &[], &[], "y", &path, &BarChartOptions::default()).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert_balanced(&svg);
        assert_eq!(svg.matches("<rect class=").count(), 0);
    }

    #[test]
    fn every_series_has_its_own_colour() {
        let colours: Vec<String> = (0..40).map(series_colour).collect();
        let distinct: std::collections::HashSet<&String> = colours.iter().collect();
        assert_eq!(distinct.len(), colours.len(), "{colours:?}");
        assert_eq!(colours[0], PALETTE[0]);
        assert!(colours.iter().all(|c| c.len() == 7 && c.starts_with('#')));
        assert_eq!(hsl_to_rgb(0.0, 1.0, 0.5), (255, 0, 0));
        assert_eq!(hsl_to_rgb(240.0, 1.0, 0.5), (0, 0, 255));
        // In a chart: eleven series, eleven fills in the legend.
        let series: Vec<(String, Vec<f64>)> =
            (0..11).map(|i| (format!("s{i}"), vec![1.0])).collect();
        let svg = bar_chart_svg_string(
            "t",
            &names(&["m"]),
            &series,
            "y",
            &BarChartOptions::default(),
        )
        .unwrap();
        let fills: std::collections::HashSet<&str> = svg
            .lines()
            .filter(|l| l.contains(r#"class="legend""#))
            .filter_map(|l| l.split("fill=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(fills.len(), 11, "{svg}");
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(0.34), 0.5);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(7.0), 10.0);
        assert_eq!(nice_step(1.0), 1.0);
    }
}
