//! Tests of `scope`.

use scopecheck_model::scope::*;

#[test]
fn a_host_thread_is_in_the_system_scope_of_a_gpu_thread_and_in_no_narrower_one() {
    let (gpu, host, other_host) = (Placement::new(0, 0), Placement::host(1), Placement::host(2));
    for s in [Scope::Cta, Scope::Cluster, Scope::Gpu] {
        assert!(!s.includes(&gpu, &host) && !s.includes(&host, &gpu), "{s}");
        assert!(!s.includes(&host, &Placement::new(0, 0)), "{s}");
    }
    assert!(Scope::Sys.includes(&gpu, &host) && Scope::Sys.includes(&host, &gpu));
    assert_eq!(Scope::narrowest_common(&host, &gpu), Scope::Sys);
    assert!(!Scope::Cta.includes(&host, &other_host));
    assert_eq!(host.to_string(), "host");
}

#[test]
fn scope_inclusion_follows_the_hierarchy() {
    let a = Placement::new(0, 0);
    let same_cta = Placement::new(0, 0);
    let other_cta = Placement::new(1, 0);
    let other_gpu = Placement::new(0, 1);
    assert!(Scope::Cta.includes(&a, &same_cta));
    assert!(!Scope::Cta.includes(&a, &other_cta));
    assert!(!Scope::Cluster.includes(&a, &other_cta));
    assert!(Scope::Gpu.includes(&a, &other_cta));
    assert!(!Scope::Gpu.includes(&a, &other_gpu));
    assert!(Scope::Sys.includes(&a, &other_gpu));
    assert_eq!(Scope::narrowest_common(&a, &other_cta), Scope::Gpu);
    let clustered = |cta| Placement {
        gpu: 0,
        cluster: Some(7),
        cta,
    };
    assert!(Scope::Cluster.includes(&clustered(0), &clustered(1)));
}
