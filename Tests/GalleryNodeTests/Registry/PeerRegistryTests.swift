@testable import GalleryNode
import Testing

/// The registry's duplicate rule alone (`PeerRegistry.duplicateCloses`): one connection per pair
/// of nodes, the one opened by the node with the smaller node ID, whatever the order they
/// authenticate in; and connection IDs.
@Suite struct PeerRegistryTests {
    @Test func theOnlyConnectionToAPeerStays() {
        #expect(PeerRegistry.duplicateCloses(outbound: true, others: [], keepOutbound: true).isEmpty)
        #expect(PeerRegistry.duplicateCloses(outbound: false, others: [], keepOutbound: true).isEmpty)
    }

    @Test func thePreferredConnectionReplacesTheOthers() {
        // This node's ID is the smaller: its outbound connection is kept.
        #expect(PeerRegistry.duplicateCloses(outbound: true, others: [(4, false), (7, false)], keepOutbound: true)
            == [.other(4), .other(7)])
        // The larger: the inbound one is kept.
        #expect(PeerRegistry.duplicateCloses(outbound: false, others: [(4, true)], keepOutbound: false) == [.other(4)])
    }

    @Test func aConnectionThatIsNotPreferredClosesItself() {
        #expect(PeerRegistry.duplicateCloses(outbound: false, others: [(4, true)], keepOutbound: true) == [.this])
        #expect(PeerRegistry.duplicateCloses(outbound: false, others: [(4, false)], keepOutbound: true) == [.this])
        // Preferred, but a preferred one is up already: the older preferred stays.
        #expect(PeerRegistry.duplicateCloses(outbound: true, others: [(4, false), (5, true), (6, false)], keepOutbound: true)
            == [.other(4), .this])
    }

    @Test func bothSidesKeepTheSameConnection() {
        // A dialed B (connection a1 on A, b1 on B) and B dialed A (a2, b2); A has the smaller ID.
        // Whichever authenticates last on each side, the one A opened (a1 = b1) is kept.
        let onA = PeerRegistry.duplicateCloses(outbound: false, others: [(1, true)], keepOutbound: true)
        let onB = PeerRegistry.duplicateCloses(outbound: false, others: [(2, true)], keepOutbound: false)
        #expect(onA == [.this] && onB == [.other(2)])
        let onAOther = PeerRegistry.duplicateCloses(outbound: true, others: [(2, false)], keepOutbound: true)
        let onBOther = PeerRegistry.duplicateCloses(outbound: true, others: [(1, false)], keepOutbound: false)
        #expect(onAOther == [.other(2)] && onBOther == [.this])
    }

    @Test func connectionIDsStartAtOneAndAreNeverReused() {
        var registry = PeerRegistry()
        let ids = [registry.nextID(), registry.nextID()]
        registry.closed(1)
        let third = registry.nextID()
        #expect(ids == [1, 2] && third == 3 && registry.lastID == 3)
        registry.authenticated(3, at: 12.5)
        #expect(registry.since[3] == 12.5)
        registry.forgetAddress(of: 3)
        #expect(registry.since[3] == nil && registry.connections.isEmpty && registry.connectedKeys.isEmpty)
    }
}
