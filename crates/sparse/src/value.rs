//! The value types a matrix can hold: one per Matrix Market field.
//!
//! `()` is the value of a *pattern* matrix: a `Vec<()>` costs no memory, so a structure-only matrix is
//! simply `CsrMatrix<()>` and every algorithm generic over [`Value`] works on patterns too.

use num_complex::Complex64;

/// A matrix entry type: `f64` (real), `i64` (integer), [`Complex64`] (complex) or `()` (pattern).
pub trait Value: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// Combines two entries at the same position (duplicates are summed, as scipy does).
    fn accumulate(self, other: Self) -> Self;
    /// The entry mirrored across the diagonal of a skew-symmetric matrix.
    fn negate(self) -> Self;
    /// The entry mirrored across the diagonal of a Hermitian matrix.
    fn conjugate(self) -> Self;
    /// The value used when the entry takes part in a real computation (pattern entries are `1.0`,
    /// complex entries contribute their real part).
    fn to_f64(self) -> f64;
    /// `len` zeros, for a buffer whose every slot is written next. Real and integer zeros come
    /// from the allocator's zeroed pages, so that the threads that fill the buffer also fault its
    /// pages in, instead of one thread writing every byte first.
    fn zeros(len: usize) -> Vec<Self>;
}

impl Value for f64 {
    fn accumulate(self, other: Self) -> Self {
        self + other
    }
    fn negate(self) -> Self {
        -self
    }
    fn conjugate(self) -> Self {
        self
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn zeros(len: usize) -> Vec<Self> {
        vec![0.0; len]
    }
}

impl Value for i64 {
    fn accumulate(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn negate(self) -> Self {
        self.wrapping_neg()
    }
    fn conjugate(self) -> Self {
        self
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn zeros(len: usize) -> Vec<Self> {
        vec![0; len]
    }
}

impl Value for Complex64 {
    fn accumulate(self, other: Self) -> Self {
        self + other
    }
    fn negate(self) -> Self {
        -self
    }
    fn conjugate(self) -> Self {
        self.conj()
    }
    fn to_f64(self) -> f64 {
        self.re
    }
    fn zeros(len: usize) -> Vec<Self> {
        vec![Complex64::new(0.0, 0.0); len]
    }
}

impl Value for () {
    fn accumulate(self, _other: Self) -> Self {}
    fn negate(self) -> Self {}
    fn conjugate(self) -> Self {}
    fn to_f64(self) -> f64 {
        1.0
    }
    fn zeros(len: usize) -> Vec<Self> {
        vec![(); len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_are_zero_entries_of_the_length_asked() {
        assert_eq!(f64::zeros(3), [0.0; 3]);
        assert!(
            f64::zeros(4).iter().all(|z| z.to_bits() == 0),
            "+0.0, not -0.0"
        );
        assert_eq!(i64::zeros(2), [0; 2]);
        assert_eq!(Complex64::zeros(2), [Complex64::new(0.0, 0.0); 2]);
        assert_eq!(<()>::zeros(5).len(), 5);
        assert!(f64::zeros(0).is_empty());
    }
}
