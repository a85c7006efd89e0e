//! The profile's node lines, shared between copies of a profile in chunks.
//!
//! An iteration copies the profile twice (the view keeps the running jobs'
//! profile, the passes change a copy of it) and changes a few lines of each
//! copy. With one shared pointer per line, a copy and its drop touched a
//! reference count in every line: on 5,000 nodes, two cache misses and two
//! atomic operations per node and copy, a quarter of a simulation's time.
//! The lines are kept in chunks of [`CHUNK`] instead, each chunk shared
//! between copies and copied on the first change to one of its lines (its
//! line pointers only: the lines themselves stay shared until changed). A
//! copy then costs one count per chunk, a changed line one chunk's
//! pointers, and looking up a line one more load.
//!
//! (`im`'s and `imbl`'s persistent vectors share in chunks too, but take a
//! tree walk for every look-up; a profile is looked up far more often than
//! copied, always by index, and never grows.)

use std::sync::Arc;

/// Lines per chunk (a power of two).
const CHUNK_BITS: u32 = 6;
const CHUNK: usize = 1 << CHUNK_BITS;

/// A fixed-length array of shared lines, chunk by chunk copy-on-write.
#[derive(Clone, Debug, Default)]
pub(super) struct Lines<T> {
    chunks: Vec<Arc<Vec<Arc<T>>>>,
    len: usize,
}

impl<T> Lines<T> {
    /// The lines, in order.
    pub(super) fn new(items: impl IntoIterator<Item = T>) -> Lines<T> {
        let mut chunks: Vec<Arc<Vec<Arc<T>>>> = Vec::new();
        let mut chunk: Vec<Arc<T>> = Vec::with_capacity(CHUNK);
        let mut len = 0;
        for item in items {
            chunk.push(Arc::new(item));
            len += 1;
            if chunk.len() == CHUNK {
                chunks.push(Arc::new(std::mem::replace(
                    &mut chunk,
                    Vec::with_capacity(CHUNK),
                )));
            }
        }
        if !chunk.is_empty() {
            chunks.push(Arc::new(chunk));
        }
        Lines { chunks, len }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<&Arc<T>> {
        self.chunks
            .get(i >> CHUNK_BITS)
            .and_then(|c| c.get(i & (CHUNK - 1)))
    }

    /// Every line, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Arc<T>> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Line `i`'s pointer, its chunk made this copy's own first (a line
    /// taken out or put back, or changed through [`Lines::make_mut`]).
    #[inline]
    pub(super) fn slot_mut(&mut self, i: usize) -> &mut Arc<T> {
        &mut Arc::make_mut(&mut self.chunks[i >> CHUNK_BITS])[i & (CHUNK - 1)]
    }

    /// Line `i`, copied first if another profile shares it.
    #[inline]
    pub(super) fn make_mut(&mut self, i: usize) -> &mut T
    where
        T: Clone,
    {
        Arc::make_mut(self.slot_mut(i))
    }

    /// The lines that are not the very ones `other` holds (in order): every
    /// line changed since one was copied from the other, and maybe some
    /// changed back. Chunks still shared are passed over whole.
    pub(super) fn apart(&self, other: &Lines<T>) -> Vec<usize> {
        let mut out = Vec::new();
        for (k, c) in self.chunks.iter().enumerate() {
            let theirs = other.chunks.get(k);
            if theirs.is_some_and(|o| Arc::ptr_eq(o, c)) {
                continue;
            }
            for (j, line) in c.iter().enumerate() {
                let i = (k << CHUNK_BITS) + j;
                if theirs
                    .and_then(|o| o.get(j))
                    .is_none_or(|l| !Arc::ptr_eq(l, line))
                {
                    out.push(i);
                }
            }
        }
        out
    }
}

impl<T> std::ops::Index<usize> for Lines<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_share_chunks_until_one_line_changes() {
        let a = Lines::new(0..200u32);
        assert_eq!(a.len(), 200);
        assert_eq!(
            a.iter().map(|x| **x).collect::<Vec<_>>(),
            (0..200).collect::<Vec<_>>()
        );
        assert_eq!((a[0], a[63], a[64], a[199]), (0, 63, 64, 199));
        assert!(a.get(200).is_none());
        let mut b = a.clone();
        assert!(b.apart(&a).is_empty());
        *b.make_mut(70) = 1000;
        // The change is b's alone; its chunk's other lines are still a's.
        assert_eq!((a[70], b[70]), (70, 1000));
        assert_eq!(b.apart(&a), vec![70]);
        assert_eq!(a.apart(&b), vec![70]);
        assert!(Arc::ptr_eq(a.get(71).unwrap(), b.get(71).unwrap()));
        assert!(Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        *b.make_mut(70) = 70;
        // Equal again, though no longer the same line.
        assert!(a.iter().eq(b.iter()));
        assert_eq!(b.apart(&a), vec![70]);
        for i in 0..200 {
            *b.make_mut(i) += 1;
        }
        assert_eq!(
            b.iter().map(|x| **x).collect::<Vec<_>>(),
            (1..201).collect::<Vec<_>>()
        );
        assert_eq!(a[199], 199);
        assert_eq!(b.apart(&a).len(), 200);
        // Lines made apart are apart, equal or not, and so are those past
        // the other's end.
        let c = Lines::new(0..65u32);
        assert_eq!(a.apart(&c), (0..200).collect::<Vec<_>>());
        assert!(Lines::<u32>::new([]).apart(&a).is_empty());
    }
}
