import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The thread that owns some loop-bound state: an event loop's thread (claimed as it starts), or
/// the thread that runs a simulation (claimed by its scheduler). `LoopBound` values check against
/// it on every access, in debug builds.
package final class OwningThread: Sendable {
    /// The owner's `pthread_self()` as a number, 0 until a thread claims it.
    private let thread = Atomic<UInt>(0)

    package init() {}

    /// Makes the calling thread the owner.
    package func claim() {
        thread.store(Self.currentThreadID, ordering: .releasing)
    }

    /// Whether the caller may touch the owned state: it is the owner, or no thread claimed it yet
    /// (state made and set up before its thread starts, which then claims it).
    package var isCurrent: Bool {
        let owner = thread.load(ordering: .acquiring)
        return owner == 0 || owner == Self.currentThreadID
    }

    /// The calling thread's `pthread_self()` as a number.
    package static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

/// A value confined to one thread (an event loop's, the simulation's), reached only through
/// `value`, which checks in debug builds that the caller runs on the owner's thread (swift-nio's
/// `NIOLoopBound`). A type that keeps its loop-only state in these is plainly `Sendable`: the
/// compiler checks the rest of it, and a caller that forgot to hop to the loop stops a debug build
/// where it happens, not as a rare race. Release builds skip the check (one class indirection).
///
/// Keep one box per field (not one struct in one box): two fields touched in one expression
/// are then two accesses, which never overlap.
// unchecked Sendable: `value` is reached only through accessors that check the owner's thread in debug builds
package final class LoopBound<Value>: @unchecked Sendable {
    /// The thread allowed to touch `value`.
    package let owner: OwningThread
    @usableFromInline var stored: Value

    @inlinable
    package init(_ value: Value, owner: OwningThread) {
        self.stored = value
        self.owner = owner
    }

    /// The value; in debug builds, stops the program when the caller is not the owner's thread.
    @inlinable
    package var value: Value {
        _read {
            check()
            yield stored
        }
        _modify {
            check()
            yield &stored
        }
    }

    /// The value without the check: for an `init` or a `deinit` only, where no other thread can
    /// reach the value yet, or any more.
    @inlinable
    package var uncheckedValue: Value {
        _read { yield stored }
        _modify { yield &stored }
    }

    /// Stops a debug build when the caller is not the owner's thread.
    @inlinable @inline(__always)
    package func check() {
        #if DEBUG
        precondition(owner.isCurrent, "loop-bound state touched off its owning thread")
        #endif
    }
}
