import GalleryIO
import GalleryNode

/// The simulated network between the nodes of a mesh: who listens where, links with latency and
/// bandwidth, partitions (links across them stall, dials across them time out), link drops and
/// node crashes (links reset).
/// Its state is `LoopBound` to the simulation's thread (`SimulationScheduler.owner`).
package final class SimulatedNetwork: Sendable {
    /// The scheduler the links deliver on.
    let scheduler: SimulationScheduler
    /// Seeds each link's latency draws.
    let seed: UInt64
    /// Latency, jitter and bandwidth of every link.
    let conditions: LinkConditions
    /// Bytes every node wrote onto a link (handshakes, ops, heartbeats, everything).
    package internal(set) var bytesSent: Int { _read { yield boundBytesSent.value } _modify { yield &boundBytesSent.value } }
    private let boundBytesSent: LoopBound<Int>
    /// What every node's connections wrote, by frame type (shared by all the nodes).
    package let tally = WireTally()
    /// Every link made, in order.
    var links: [SimulatedLink] { _read { yield boundLinks.value } _modify { yield &boundLinks.value } }
    private let boundLinks: LoopBound<[SimulatedLink]>
    /// Links by node index (at either end).
    private var linksByNode: [Int: [SimulatedLink]] { _read { yield boundLinksByNode.value } _modify { yield &boundLinksByNode.value } }
    private let boundLinksByNode: LoopBound<[Int: [SimulatedLink]]>
    /// What listens on each node index: the accept callback and the lane it runs on.
    private var listeners: [Int: (lane: Int, accepted: @Sendable (any TransportLink) -> Void)] {
        get { boundListeners.value }
        set { boundListeners.value = newValue }
    }
    private let boundListeners: LoopBound<[Int: (lane: Int, accepted: @Sendable (any TransportLink) -> Void)]>
    /// The side of each node in the current partition (nil: no partition).
    private var sides: [Int]? { _read { yield boundSides.value } _modify { yield &boundSides.value } }
    private let boundSides: LoopBound<[Int]?>

    /// A network with no link yet.
    init(scheduler: SimulationScheduler, seed: UInt64, conditions: LinkConditions) {
        self.scheduler = scheduler
        boundBytesSent = LoopBound(0, owner: scheduler.owner)
        boundLinks = LoopBound([], owner: scheduler.owner)
        boundLinksByNode = LoopBound([:], owner: scheduler.owner)
        boundListeners = LoopBound([:], owner: scheduler.owner)
        boundSides = LoopBound(nil, owner: scheduler.owner)
        boundAcceptorLanes = LoopBound([:], owner: scheduler.owner)
        self.seed = seed
        self.conditions = conditions
    }

    /// The listening endpoint of node `index`.
    static func endpoint(of index: Int) -> Endpoint {
        Endpoint(host: address(of: index), port: 7000)
    }

    /// Node `index`'s IP address: one /16 per node, so admission's per-address limits see
    /// different hosts.
    static func address(of index: Int) -> String {
        "10.\(index / 250 + 1).\(index % 250 + 1).1"
    }

    /// The node listening on `endpoint`.
    static func index(of endpoint: Endpoint) -> Int? {
        let parts = endpoint.host.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4, parts[0] == 10 else { return nil }
        return (parts[1] - 1) * 250 + parts[2] - 1
    }

    /// Whether nodes `a` and `b` are on different sides of a partition.
    func isPartitioned(_ a: Int, _ b: Int) -> Bool {
        guard let sides else { return false }
        return sides[a] != sides[b]
    }

    /// Node `index` accepts links, on `lane`.
    func listen(_ index: Int, lane: Int, accepted: @escaping @Sendable (any TransportLink) -> Void) {
        listeners[index] = (lane, accepted)
    }

    /// Node `index` accepts no more links.
    func stopListening(_ index: Int) {
        listeners[index] = nil
    }

    /// Dials from node `from` (its callbacks on `lane`): after a round trip the link exists and
    /// both sides are told; refused when nothing listens; times out across a partition.
    func connect(from: Int, lane: Int, makeLane: @escaping () -> Int, to endpoint: Endpoint, timeout: UInt64,
                 completion: @escaping @Sendable (Result<any TransportLink, TransportError>) -> Void) {
        let roundTrip = 2 * conditions.latency
        guard let target = Self.index(of: endpoint) else {
            scheduler.schedule(after: roundTrip, lane: lane) { completion(.failure(.connect(endpoint.description, "no route"))) }
            return
        }
        if isPartitioned(from, target) {
            scheduler.schedule(after: timeout, lane: lane) { completion(.failure(.connect(endpoint.description, "timed out"))) }
            return
        }
        scheduler.schedule(after: roundTrip, lane: lane) { [self] in
            guard let listener = listeners[target], scheduler.isAlive(listener.lane), !isPartitioned(from, target) else {
                completion(.failure(.connect(endpoint.description, "connection refused")))
                return
            }
            let link = SimulatedLink(
                network: self, id: links.count, nodes: (from, target),
                remotes: ("\(Self.address(of: from)):\(40_000 + links.count % 20_000)", endpoint.description),
                lanes: (makeLane(), scheduler.makeLane()))
            links.append(link)
            linksByNode[from, default: []].append(link)
            linksByNode[target, default: []].append(link)
            // The acceptor's end dies with the acceptor: its lane is registered as the node's.
            acceptorLanes[target, default: []].append(link.ends[1].lane)
            scheduler.schedule(at: scheduler.now, lane: listener.lane) { listener.accepted(link.ends[1]) }
            completion(.success(link.ends[0]))
        }
    }

    /// The channel lanes of accepted links, by node, to kill at a crash.
    private var acceptorLanes: [Int: [Int]] { _read { yield boundAcceptorLanes.value } _modify { yield &boundAcceptorLanes.value } }
    private let boundAcceptorLanes: LoopBound<[Int: [Int]]>

    /// Node `index` crashed: its links reset (the peers see a reset), its accepted channels'
    /// lanes die with it.
    func crash(_ index: Int) {
        listeners[index] = nil
        for lane in acceptorLanes.removeValue(forKey: index) ?? [] { scheduler.kill(lane) }
        for link in linksByNode.removeValue(forKey: index) ?? [] { link.reset(reason: "connection reset by peer") }
    }

    /// Drops one live link at random (a lost connection: TCP gives up); false when none is live.
    func dropLink(using random: inout some RandomNumberGenerator) -> Bool {
        let live = links.filter { !$0.isReset && !$0.ends[0].isClosed && !$0.ends[1].isClosed }
        guard let link = live.randomElement(using: &random) else { return false }
        link.reset(reason: "connection reset (link lost)")
        return true
    }

    /// Splits the nodes into sides (`sides[i]` for node i); links across stall from now on.
    func partition(_ sides: [Int]) {
        self.sides = sides
    }

    /// Ends the partition: links that stalled across it are reset (their ends had timed out, or
    /// will see the reset).
    func heal() {
        guard let sides else { return }
        for link in links where !link.isReset && sides[link.nodes.0] != sides[link.nodes.1] {
            link.reset(reason: "connection reset after a partition")
        }
        self.sides = nil
    }
}
