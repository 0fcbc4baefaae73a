use scopecheck_model::axiomatic::*;
use scopecheck_model::engine::Dfs;
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::runtime::litmus::{explore_with, Options as RtOptions};
fn main() {
    let n: u64 = std::env::args().nth(1).map_or(1000, |a| a.parse().unwrap());
    let cap: u64 = std::env::args().nth(2).map_or(20000, |a| a.parse().unwrap());
    let mut limits = Limits::differential();
    if let Ok(v) = std::env::var("MAXEV") { limits.max_events = v.parse().unwrap(); }
    let mut ta = vec![]; let mut tr = vec![]; let mut ex = vec![];
    for s in 0..n {
        let p = from_seed_with(s, &limits);
        let t0 = std::time::Instant::now();
        let _ = analyze(&p, Model::PtxV75, &Options::default());
        let t1 = std::time::Instant::now();
        let r = explore_with(&p, &Dfs { max_executions: cap }, &RtOptions::default());
        let t2 = std::time::Instant::now();
        ta.push((t1 - t0).as_secs_f64() * 1e3); tr.push((t2 - t1).as_secs_f64() * 1e3); ex.push(r.executions + r.cut);
    }
    for (name, v) in [("axiomatic ms", &mut ta), ("runtime ms", &mut tr)] {
        let sum: f64 = v.iter().sum();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("{name}: mean {:.3} median {:.3} p90 {:.3} p99 {:.3} max {:.3}; top1% share {:.0}%", sum / n as f64, v[v.len()/2], v[v.len()*9/10], v[v.len()*99/100], v[v.len()-1], 100.0 * v[v.len()*99/100..].iter().sum::<f64>() / sum);
    }
    ex.sort();
    println!("runtime execs: median {} p90 {} p99 {} max {}", ex[ex.len()/2], ex[ex.len()*9/10], ex[ex.len()*99/100], ex[ex.len()-1]);
}
