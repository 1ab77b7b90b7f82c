//! The CFG as an SVG picture with divergence marked, drawn without external tools.
//!
//! Layout: blocks in layers, the layer of a block one below its deepest forward
//! predecessor (back edges ignored), visited in reverse postorder, so the picture reads top
//! to bottom like the program; within a layer, blocks sit left to right in RPO. Forward
//! edges are straight arrows; back edges are curves on the right. Blocks ending in a
//! divergent branch get a thick red border, join-divergent blocks an orange fill, headers
//! of divergent loops a dashed border; a legend explains it.

use core::fmt::Write as _;

use cranelift_entity::SecondaryMap;
use lanes_ir::{Block, Function};

use super::ShapeInfo;

const BOX_W: i64 = 150;
const BOX_H: i64 = 44;
const GAP_X: i64 = 40;
const GAP_Y: i64 = 50;
const MARGIN: i64 = 20;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Draws the CFG of `func` with the divergence facts of `info`.
pub fn svg(func: &Function, info: &ShapeInfo) -> String {
    let rpo = info.cfg().rpo();
    let mut layer: SecondaryMap<Block, i64> = SecondaryMap::new();
    for &b in rpo {
        let l = info
            .cfg()
            .preds(b)
            .iter()
            .filter(|&&p| info.cfg().is_reachable(p) && !info.loops().is_back_edge(p, b))
            .filter(|&&p| info.cfg().rpo_number(p) < info.cfg().rpo_number(b))
            .map(|&p| layer[p] + 1)
            .max()
            .unwrap_or(0);
        layer[b] = l;
    }
    let layers = rpo.iter().map(|&b| layer[b]).max().map_or(0, |m| m + 1);
    let mut slot: SecondaryMap<Block, i64> = SecondaryMap::new();
    let mut width_of = vec![0i64; layers as usize];
    for &b in rpo {
        let l = layer[b] as usize;
        slot[b] = width_of[l];
        width_of[l] += 1;
    }
    let cols = width_of.iter().copied().max().unwrap_or(1).max(1);
    let width = MARGIN * 2 + cols * (BOX_W + GAP_X) + 220;
    let height = MARGIN * 2 + layers.max(1) * (BOX_H + GAP_Y) + 90;
    let pos = |b: Block| {
        (
            MARGIN + slot[b] * (BOX_W + GAP_X),
            MARGIN + layer[b] * (BOX_H + GAP_Y),
        )
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"monospace\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<title>@{} divergence</title>", esc(&func.name));
    s.push_str(
        "<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"8\" refY=\"4\" \
         orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#444\"/></marker></defs>\n",
    );
    // Edges first, under the boxes.
    for &b in rpo {
        let (x0, y0) = pos(b);
        for &t in info.cfg().succs(b) {
            if !info.cfg().is_reachable(t) {
                continue;
            }
            let (x1, y1) = pos(t);
            let color = if info.is_divergent_branch(b) {
                "#c00"
            } else {
                "#444"
            };
            if info.loops().is_back_edge(b, t) || layer[t] <= layer[b] {
                let (sx, sy) = (x0 + BOX_W, y0 + BOX_H / 2);
                let (ex, ey) = (x1 + BOX_W, y1 + BOX_H / 2);
                let bulge = sx.max(ex) + GAP_X;
                let _ = writeln!(
                    s,
                    "<path d=\"M{sx},{sy} C{bulge},{sy} {bulge},{ey} {ex},{ey}\" fill=\"none\" \
                     stroke=\"{color}\" stroke-dasharray=\"4,3\" marker-end=\"url(#arrow)\"/>"
                );
            } else {
                let _ = writeln!(
                    s,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{color}\" \
                     marker-end=\"url(#arrow)\"/>",
                    x0 + BOX_W / 2,
                    y0 + BOX_H,
                    x1 + BOX_W / 2,
                    y1
                );
            }
        }
    }
    for &b in rpo {
        let (x, y) = pos(b);
        let join = info.is_join_divergent(b);
        let div = info.is_divergent_branch(b);
        let header_div = info
            .loops()
            .loop_of_header(b)
            .is_some_and(|l| info.is_divergent_loop(l));
        let fill = if join { "#ffd08a" } else { "#f4f4f4" };
        let (stroke, sw) = if div { ("#c00", 3) } else { ("#333", 1) };
        let dash = if header_div {
            " stroke-dasharray=\"6,3\""
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "<g class=\"block\" id=\"{b}\"><rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" \
             height=\"{BOX_H}\" rx=\"4\" fill=\"{fill}\" stroke=\"{stroke}\" \
             stroke-width=\"{sw}\"{dash}/>"
        );
        let mut label = vec![b.to_string()];
        if div {
            label.push("divergent branch".into());
        } else if join {
            label.push("join-divergent".into());
        }
        for (i, line) in label.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\">{}</text>",
                x + 8,
                y + 17 + 16 * i as i64,
                esc(line)
            );
        }
        s.push_str("</g>\n");
    }
    let ly = height - 80;
    let lx = MARGIN;
    let _ = writeln!(
        s,
        "<g class=\"legend\"><rect x=\"{lx}\" y=\"{ly}\" width=\"14\" height=\"14\" \
         fill=\"#f4f4f4\" stroke=\"#c00\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">divergent \
         branch</text><rect x=\"{lx}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"#ffd08a\" \
         stroke=\"#333\"/><text x=\"{}\" y=\"{}\">join-divergent block</text><rect x=\"{lx}\" \
         y=\"{}\" width=\"14\" height=\"14\" fill=\"#f4f4f4\" stroke=\"#333\" \
         stroke-dasharray=\"6,3\"/><text x=\"{}\" y=\"{}\">header of a divergent loop</text></g>",
        lx + 20,
        ly + 12,
        ly + 22,
        lx + 20,
        ly + 34,
        ly + 44,
        lx + 20,
        ly + 56
    );
    s.push_str("</svg>\n");
    s
}
