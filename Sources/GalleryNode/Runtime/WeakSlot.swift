import Synchronization

/// A weak reference that is set after `init` and read from any thread: a part's back-pointer to
/// its node, set once by the node's `attach`. A part that keeps one as `let` stays plainly
/// `Sendable` (a `weak var` of its own would not be); each read takes a short lock, so it is for
/// paths that read it once per job, not per byte.
final class WeakSlot<Object: AnyObject & Sendable>: Sendable {
    /// The reference itself (a `Mutex` holds a struct, and only a stored `weak var` is weak).
    private struct Reference {
        weak var object: Object?
    }

    private let reference = Mutex(Reference())

    init() {}

    /// The object, while it lives; nil before it is set and once it is gone.
    var object: Object? {
        get { reference.withLock { $0.object } }
        set { reference.withLock { $0.object = newValue } }
    }
}
