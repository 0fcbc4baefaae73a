//! The harness's fixed sizes and the layout of an outcome key: what the device, the host threads
//! and the decoder agree on.

/// Names of the two kernels in the generated module.
pub const TEST_KERNEL: &str = "litmus_test";
pub const CHECK_KERNEL: &str = "litmus_check";

/// Slots in the device outcome table (a power of two).
pub const TABLE_SLOTS: usize = 4096;
/// The most observables one key packs: 56 bits below the tag byte, shared out by
/// [`value_bits`].
pub const MAX_OBSERVABLES: usize = 16;

/// Bits per observed value in a key of `observables` values: 8 for up to 7 values (-128..=127),
/// 4 for up to 14 (-8..=7), 3 for up to 16 (-4..=3). A value outside its range marks the
/// instance "too wide" instead of being packed.
pub fn value_bits(observables: usize) -> u32 {
    match observables {
        0..=7 => 8,
        8..=14 => 4,
        _ => 3,
    }
}
/// Backward branches a litmus thread may take before it gives up (its instance counts as timed out).
pub const STEP_LIMIT: u32 = 1 << 16;

/// Tag byte of an outcome key: an ordinary final state.
pub const TAG_STATE: u64 = 1;
/// Tag byte: some litmus thread of the instance ran out of steps.
pub const TAG_TIMEOUT: u64 = 2;
/// Tag byte: some observable fell outside the range its [`value_bits`] can pack.
pub const TAG_WIDE: u64 = 3;
/// Tag byte: a spinning reader gave up before its load returned the value it waits for. The
/// instance has no final state of the test (the reader never got past its first load).
pub const TAG_SPIN: u64 = 4;
