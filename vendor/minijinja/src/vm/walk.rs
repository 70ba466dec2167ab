//! Deep walks under the render's fuel (a Switchboard patch, see `vendor/README.md`).
//!
//! Formatting, comparing and hashing a value walk all of it, and values share their items: a
//! few instructions can build a list whose walk visits billions of items (`[x] * 100` nested
//! a few times, or the lazy `seq * 7777777`), which the per-instruction fuel never sees.
//! While a render with fuel runs, every item these walks visit and every string byte they
//! read is counted here; past the fuel still left the walk stops early, and the VM turns
//! the count into an `OutOfFuel` error at its next instruction.
use std::cell::Cell;

use crate::value::Value;

/// Units a walk spends per item visited (an instruction's worth: printing an item is work).
pub(crate) const ITEM_COST: u64 = 64;

/// Units per byte of a string printed in its quoted form (escaped character by character).
pub(crate) const QUOTED_BYTE_COST: u64 = 16;

thread_local! {
    /// Units spent by walks since the VM last took them, and the limit while a render with
    /// fuel runs on this thread.
    static WALK: Cell<(u64, Option<u64>)> = const { Cell::new((0, None)) };
}

/// Counts `units` of walking; false once the render's fuel would be spent.
#[inline]
pub(crate) fn charge(units: u64) -> bool {
    WALK.with(|w| match w.get() {
        (_, None) => true,
        (spent, Some(limit)) => {
            let spent = spent.saturating_add(units);
            w.set((spent, Some(limit)));
            spent < limit
        }
    })
}

/// The units spent since the last call; the next walks may spend `next_limit`.
#[inline]
pub(crate) fn settle(next_limit: impl FnOnce(u64) -> u64) -> u64 {
    WALK.with(|w| {
        let (spent, _) = w.get();
        w.set((0, Some(next_limit(spent))));
        spent
    })
}

/// Arms the walk limit for a render and restores the previous one when dropped.
pub(crate) struct Scope(Option<u64>);

impl Scope {
    /// Starts counting with `limit` units.
    pub(crate) fn enter(limit: u64) -> Scope {
        Scope(WALK.with(|w| {
            let (spent, prev) = w.get();
            w.set((spent, Some(limit)));
            prev
        }))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let prev = self.0;
        WALK.with(|w| {
            let (spent, _) = w.get();
            // Outside any render nothing is counted (or kept).
            w.set((if prev.is_some() { spent } else { 0 }, prev));
        });
    }
}

/// An object iterator whose items are counted; it ends once the fuel would be spent.
pub(crate) struct Charged<I>(pub(crate) I);

impl<I: Iterator> Iterator for Charged<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if charge(ITEM_COST) {
            self.0.next()
        } else {
            None
        }
    }

    // The inner hint, exact where the inner one is (lengths and `loop.last` rely on it); it
    // is only wrong once the walk stops, and then the render fails anyway.
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// Counts `len` bytes printed in quoted form.
#[inline]
pub(crate) fn charge_quoted(len: usize) -> bool {
    charge((len as u64).saturating_mul(QUOTED_BYTE_COST))
}

/// Counts the bytes of a string (or bytes) value; other values are free here.
#[inline]
pub(crate) fn charge_value(value: &Value) -> bool {
    use crate::value::ValueRepr;
    match value.0 {
        ValueRepr::String(ref s, _) => charge(s.len() as u64),
        ValueRepr::SmallStr(ref s) => charge(s.as_str().len() as u64),
        ValueRepr::Bytes(ref b) => charge(b.len() as u64),
        _ => true,
    }
}
