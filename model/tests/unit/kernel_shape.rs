//! Tests of `kernel::shape`.

use scopecheck_model::kernel::{Dim3, Grid};

#[test]
fn linear_ids_follow_the_programming_guide() {
    let d = Dim3::new(3, 2, 2);
    for id in 0..d.volume() {
        let i = d.index_of(id);
        assert_eq!(i.x + i.y * d.x + i.z * d.x * d.y, id);
    }
    let g = Grid::shaped((2, 3), (4, 2, 2));
    assert_eq!((g.blocks, g.threads_per_block), (6, 16));
}
