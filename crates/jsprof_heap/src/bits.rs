//! A fixed-size bit vector (one bit per node or edge), for flags kept over millions of items.

#[derive(Clone, Debug, Default)]
pub struct BitVec {
    words: Vec<u64>,
}

impl BitVec {
    pub fn new(len: usize) -> BitVec {
        BitVec {
            words: vec![0; len.div_ceil(64)],
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }
}
