//! A CUDA `dim3`: sizes or indices along x, y and z.

/// A CUDA `dim3`: sizes or indices along x, y and z.
///
/// ```
/// use scopecheck_model::kernel::Dim3;
/// let d = Dim3::new(4, 2, 1);
/// assert_eq!(d.volume(), 8);
/// assert_eq!(d.index_of(5), Dim3::new(1, 1, 0));
/// assert_eq!(Dim3::from((3, 2)), Dim3::new(3, 2, 1));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent (or index) along x, the fastest-varying dimension.
    pub x: u32,
    /// Extent (or index) along y.
    pub y: u32,
    /// Extent (or index) along z, the slowest-varying dimension.
    pub z: u32,
}

impl Dim3 {
    /// `dim3(x, y, z)`.
    pub fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// A 1-D `dim3(x)`.
    pub fn x(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }

    /// How many elements the shape holds.
    pub fn volume(&self) -> u32 {
        self.x * self.y * self.z
    }

    /// The index `(x, y, z)` whose linear id is `id` (`id = x + y Dx + z Dx Dy`).
    pub fn index_of(&self, id: u32) -> Dim3 {
        Dim3 {
            x: id % self.x,
            y: id / self.x % self.y,
            z: id / (self.x * self.y),
        }
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::x(x)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}
