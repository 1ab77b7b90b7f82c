//! The plot of `lanes bench wfv --plot`: per kernel, one bar per lanes build with its
//! speedup over clang-19 -O3 (a line marks 1), as SVG (plotters).

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;

use lanes_driver::bench_wfv::BenchReport;

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Writes the speedups of `report` to `path`.
pub fn plot_speedups(report: &BenchReport, path: &Path) -> Result<()> {
    let builds: Vec<(String, Option<u16>)> = {
        let mut b: Vec<(String, Option<u16>)> = Vec::new();
        for k in &report.kernels {
            for r in k.records.iter().filter(|r| r.width.is_some()) {
                let key = (r.config.clone(), r.width);
                if !b.contains(&key) {
                    b.push(key);
                }
            }
        }
        b
    };
    let names: Vec<String> = report.kernels.iter().map(|k| k.kernel.clone()).collect();
    let series: Vec<(String, Vec<Option<f64>>)> = builds
        .iter()
        .map(|(config, width)| {
            let bars = report
                .kernels
                .iter()
                .map(|kr| {
                    kr.records
                        .iter()
                        .find(|r| &r.config == config && r.width == *width)
                        .map(|r| r.speedup_vs_clang)
                })
                .collect();
            (format!("{config}/{}", width.unwrap_or(0)), bars)
        })
        .collect();
    plot_bars(
        path,
        "lanes speedup over clang-19 -O3 -march=native",
        &names,
        &series,
    )
}

/// Grouped bars as SVG: per kernel (`names`), one bar per series (label, one value per
/// kernel), on a speedup axis with a line at 1.
pub fn plot_bars(
    path: &Path,
    caption: &str,
    names: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> Result<()> {
    let kernels = names.len().max(1);
    let top = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .fold(1.0f64, f64::max)
        * 1.1;
    let root = SVGBackend::new(path, (1200, 600)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow!("{e}");
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(60)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..kernels as f64, 0f64..top)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(kernels * 2 + 1)
        .x_label_formatter(&|x| {
            let k = x.floor() as usize;
            if (x - k as f64 - 0.5).abs() < 0.01 {
                names.get(k).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("speedup (x)")
        .draw()
        .map_err(|e| err(&e))?;
    let slot = 0.8 / series.len().max(1) as f64;
    for (b, (label, values)) in series.iter().enumerate() {
        let color = COLORS[b % COLORS.len()];
        let bars: Vec<Rectangle<(f64, f64)>> = values
            .iter()
            .enumerate()
            .filter_map(|(k, v)| {
                let x0 = k as f64 + 0.1 + b as f64 * slot;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + slot * 0.9, (*v)?)],
                    color.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .draw_series(LineSeries::new(
            [(0.0, 1.0), (kernels as f64, 1.0)],
            BLACK.stroke_width(1),
        ))
        .map_err(|e| err(&e))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
