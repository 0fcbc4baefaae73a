//! Host threads (`P0@host`) run their litmus instructions on the instance locations, as the
//! device threads do.

use scopecheck_gpu::host::Memory;

#[test]
fn a_host_thread_runs_its_instructions_on_the_instance_locations() {
    let p = scopecheck_model::litmus::parse(
        "PTX H\n{ x=0; y=5; }\n P0@host | P1@cta 0,gpu 0 ;\n ld.relaxed.sys r0, y | st.relaxed.sys x, 1 ;\n add r1, r0, 2 | ;\n st.release.sys x, r1 | ;\n atom.relaxed.sys.add r2, y, 3 | ;\nexists (P0:r0 == 5 /\\ P0:r2 == 5)\n",
        "h.litmus",
    )
    .unwrap();
    let h = scopecheck_gpu::generate(&p).unwrap();
    assert_eq!(h.host.len(), 1);
    let threads = &h.host;
    let k = 5u32;
    let n = 1usize << k;
    let stride = 2u32;
    let mut mem = vec![0u32; h.locations.len() * n * stride as usize];
    // y starts at 5 in every instance.
    for inst in 0..n {
        mem[(n + inst) * stride as usize] = 5;
    }
    let mut regs = vec![0u32; n * h.words_per_instance()];
    let mut go = vec![0u32; n];
    let m = Memory {
        mem: mem.as_mut_ptr(),
        regs: regs.as_mut_ptr(),
        go: go.as_mut_ptr(),
        k,
        stride,
        loc_perm: false,
    };
    threads[0].run_launch(&m, 7);
    assert!(go.iter().all(|&g| g == 1));
    for inst in 0..n {
        assert_eq!(mem[inst * stride as usize], 7, "x = r0 + 2");
        assert_eq!(mem[(n + inst) * stride as usize], 8, "y += 3");
    }
    let words = h.words_per_instance();
    let at = |r: &str| {
        h.saved
            .iter()
            .position(|(t, x)| *t == 0 && x.0 == r)
            .unwrap()
    };
    for inst in 0..n {
        assert_eq!(regs[inst * words + at("r0")], 5);
        assert_eq!(regs[inst * words + at("r2")], 5);
    }
}
