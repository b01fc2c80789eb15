@testable import GalleryNode
import Testing

/// `WeakSlot`, the back-pointer a part of the node keeps to it without a `weak var` of its own
/// (which would keep the part from being plainly `Sendable`).
@Suite("WeakSlot")
struct WeakSlotTests {
    final class Object: Sendable {}

    /// Nil until set, the object while it lives, nil once it is gone: the slot never keeps it.
    @Test func holdsWithoutRetaining() {
        let slot = WeakSlot<Object>()
        #expect(slot.object == nil)
        var object: Object? = Object()
        slot.object = object
        #expect(slot.object === object)
        object = nil
        #expect(slot.object == nil)
    }
}
