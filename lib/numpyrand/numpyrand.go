package numpyrand

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// RandomState is numpy's legacy RandomState with an integer seed.
type RandomState struct {
	key [n]uint32
	pos int
}

// New seeds like RandomState(seed): MT19937 init_genrand with the seed
// truncated to 32 bits, as numpy's legacy seeding does for 0 <= seed < 2**32.
func New(seed uint32) *RandomState {
	r := &RandomState{}
	s := seed
	for i := 0; i < n; i++ {
		r.key[i] = s
		s = 1812433253*(s^(s>>30)) + uint32(i) + 1
	}
	r.pos = n
	return r
}

func (r *RandomState) generate() {
	for i := 0; i < n; i++ {
		y := r.key[i]&upperMask | r.key[(i+1)%n]&lowerMask
		v := r.key[(i+m)%n] ^ y>>1
		if y&1 != 0 {
			v ^= matrixA
		}
		r.key[i] = v
	}
	r.pos = 0
}

// Uint32 is the next tempered MT19937 output (genrand_int32).
func (r *RandomState) Uint32() uint32 {
	if r.pos >= n {
		r.generate()
	}
	y := r.key[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Uint64 joins two outputs high word first, as numpy's mt19937_next64 does.
func (r *RandomState) Uint64() uint64 {
	hi := uint64(r.Uint32())
	return hi<<32 | uint64(r.Uint32())
}

// Interval is numpy's legacy random_interval: a uniform integer in [0, max]
// by masked rejection sampling (32-bit draws when max fits in 32 bits).
func (r *RandomState) Interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := uint(1); s <= 32; s <<= 1 {
		mask |= mask >> s
	}
	if max <= 0xffffffff {
		for {
			if v := uint64(r.Uint32()) & mask; v <= max {
				return v
			}
		}
	}
	for {
		if v := r.Uint64() & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes x in place like the legacy RandomState.shuffle of a 1-d
// array: Fisher–Yates from the end, j drawn by Interval(i).
func Shuffle[T any](r *RandomState, x []T) {
	for i := len(x) - 1; i > 0; i-- {
		j := r.Interval(uint64(i))
		x[i], x[j] = x[j], x[i]
	}
}

// Permutation is RandomState.permutation(k): a shuffled arange(k).
func (r *RandomState) Permutation(k int) []int {
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	Shuffle(r, p)
	return p
}
