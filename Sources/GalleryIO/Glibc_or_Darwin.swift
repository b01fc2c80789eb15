#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `open(2)` under one name on both platforms (Foundation also has an `open`).
package enum Glibc_or_Darwin {
    /// `open(2)`: a descriptor, or -1 with `errno` set.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags, mode)
        #else
        Glibc.open(path, flags, mode)
        #endif
    }
}
