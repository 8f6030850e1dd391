//! Type-erased pointers with a lifetime: the currency of dynamic (by-id) access.
//!
//! [`Ptr`] is a shared borrow of a value whose type is known only by id, [`PtrMut`]
//! an exclusive one. Both are `NonNull<u8>` plus a lifetime, so the borrow checker
//! still sees how long the storage is borrowed; turning one back into a typed
//! reference is `unsafe` because only the caller knows the type.
//!
//! This module is a leaf: it uses nothing else in the crate.

use core::marker::PhantomData;
use core::ptr::NonNull;

/// A type-erased shared reference to a component value.
///
/// # Examples
/// ```
/// use ecs::ptr::Ptr;
/// let value = 7_u32;
/// let ptr = Ptr::from(&value);
/// // SAFETY: `ptr` was made from a `&u32`.
/// assert_eq!(unsafe { *ptr.deref::<u32>() }, 7);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ptr<'a>(NonNull<u8>, PhantomData<&'a u8>);

/// A type-erased exclusive reference to a component value.
///
/// # Examples
/// ```
/// use ecs::ptr::PtrMut;
/// let mut value = 7_u32;
/// let ptr = PtrMut::from(&mut value);
/// // SAFETY: `ptr` was made from a `&mut u32`.
/// unsafe { *ptr.deref_mut::<u32>() = 8 };
/// assert_eq!(value, 8);
/// ```
#[derive(Debug)]
pub struct PtrMut<'a>(NonNull<u8>, PhantomData<&'a mut u8>);

impl<'a> Ptr<'a> {
    /// Wraps a raw pointer.
    ///
    /// # Safety
    /// `ptr` must point to a live value that stays valid and unmutated for `'a`.
    #[inline]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr, PhantomData)
    }

    /// The raw pointer.
    #[inline]
    pub fn as_ptr(self) -> *const u8 {
        self.0.as_ptr()
    }

    /// Reads the pointer as a `&T`.
    ///
    /// # Safety
    /// The pointee must be a valid, properly aligned `T`.
    #[inline]
    pub unsafe fn deref<T>(self) -> &'a T {
        debug_assert!(self.0.cast::<T>().is_aligned(), "misaligned Ptr");
        // SAFETY: the caller guarantees the pointee is a valid `T`; `'a` bounds the borrow.
        unsafe { self.0.cast::<T>().as_ref() }
    }
}

impl<'a, T> From<&'a T> for Ptr<'a> {
    fn from(value: &'a T) -> Self {
        Self(NonNull::from(value).cast(), PhantomData)
    }
}

impl<'a> PtrMut<'a> {
    /// Wraps a raw pointer.
    ///
    /// # Safety
    /// `ptr` must point to a live value that nothing else accesses for `'a`.
    #[inline]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr, PhantomData)
    }

    /// The raw pointer.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.as_ptr()
    }

    /// Reborrows as a shared [`Ptr`].
    #[inline]
    pub fn as_ref(&self) -> Ptr<'_> {
        Ptr(self.0, PhantomData)
    }

    /// Reads the pointer as a `&mut T`.
    ///
    /// # Safety
    /// The pointee must be a valid, properly aligned `T`.
    #[inline]
    pub unsafe fn deref_mut<T>(self) -> &'a mut T {
        debug_assert!(self.0.cast::<T>().is_aligned(), "misaligned PtrMut");
        // SAFETY: the caller guarantees the pointee is a valid `T`; the borrow is exclusive for `'a`.
        unsafe { self.0.cast::<T>().as_mut() }
    }
}

impl<'a, T> From<&'a mut T> for PtrMut<'a> {
    fn from(value: &'a mut T) -> Self {
        Self(NonNull::from(value).cast(), PhantomData)
    }
}
