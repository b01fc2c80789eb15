import GalleryIO
import GalleryNode
import Synchronization

/// One node incarnation's view of the simulated network (`NodeTransport`): listens on its
/// address, dials others; callbacks run on the node's timer lane, its channel ends on lanes of
/// their own that die with the node.
final class SimulatedTransport: NodeTransport, Sendable {
    /// The network the node is on.
    let network: SimulatedNetwork
    /// The node's index (its address).
    let index: Int
    /// The lane of the incarnation's timers (dial outcomes, accepts run there).
    let lane: Int
    /// Lanes made for this incarnation's dialed channel ends, to kill at a crash.
    var ownedLanes: [Int] { owned.withLock { $0 } }
    private let owned = Mutex<[Int]>([])

    /// The transport of node `index`'s incarnation whose timers run on `lane`.
    init(network: SimulatedNetwork, index: Int, lane: Int) {
        self.network = network
        self.index = index
        self.lane = lane
    }

    /// A simulated listener never fails to accept: `failed` is not called.
    func listen(
        on endpoint: Endpoint, accepted: @escaping @Sendable (any TransportLink) -> Void,
        failed: @escaping @Sendable (TransportError) -> UInt64
    ) throws(TransportError) -> Endpoint {
        network.listen(index, lane: lane, accepted: accepted)
        return SimulatedNetwork.endpoint(of: index)
    }

    func connect(to endpoint: Endpoint, timeout: UInt64, completion: @escaping @Sendable (Result<any TransportLink, TransportError>) -> Void) {
        network.connect(from: index, lane: lane, makeLane: { [self] in
            let lane = network.scheduler.makeLane()
            owned.withLock { $0.append(lane) }
            return lane
        }, to: endpoint, timeout: timeout, completion: completion)
    }

    func stopListening() {
        network.stopListening(index)
    }
}
