//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package spsc

// The indices are accessed with native-endian atomics and the layout is
// little-endian, so big-endian hosts are refused at compile time.
const _ = "spsc: big-endian hosts are not supported" + 0
