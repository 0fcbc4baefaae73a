//! Write the campaign shapes (see `scopecheck_gpu::shapes`) as litmus files:
//! `cargo run --release -p scopecheck-gpu --example campaign_shapes -- corpus/gpu-campaign`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "corpus/gpu-campaign".into()),
    );
    let variants = scopecheck_gpu::shapes::all_variants();
    for (rel, text) in &variants {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("SHAPE/stem.litmus"))?;
        std::fs::write(&path, text)?;
    }
    println!(
        "{} litmus files written under {}",
        variants.len(),
        dir.display()
    );
    Ok(())
}
