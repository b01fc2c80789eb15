import GalleryIO
import GallerySimulation

/// A simulated TCP connection between two nodes: two channel ends, each direction with its own
/// bandwidth queue and seeded latency, in-order delivery (bytes are never lost or reordered on a
/// link; a lost link is a reset of both ends). A link across a partition stalls: nothing it sends
/// arrives, and the nodes' liveness timers end it.
/// Its state is `LoopBound` to the simulation's thread (`SimulationScheduler.owner`).
final class SimulatedLink: Sendable {
    /// The network that keeps every link (for the link's lifetime).
    unowned let network: SimulatedNetwork
    /// The link's number, in creation order.
    let id: Int
    /// The node indices at each end (0: the dialer).
    let nodes: (Int, Int)
    /// The ends (0: the dialer's); each node installs its pipeline on its own.
    var ends: [SimulatedChannel] { _read { yield boundEnds.value } _modify { yield &boundEnds.value } }
    private let boundEnds: LoopBound<[SimulatedChannel]>
    /// Per direction (by sending side): until when the link is busy transmitting.
    private var busyUntil: [UInt64] { _read { yield boundBusyUntil.value } _modify { yield &boundBusyUntil.value } }
    private let boundBusyUntil: LoopBound<[UInt64]>
    /// Per direction: when the last bytes arrive (later ones never arrive before).
    private var lastArrival: [UInt64] { _read { yield boundLastArrival.value } _modify { yield &boundLastArrival.value } }
    private let boundLastArrival: LoopBound<[UInt64]>
    /// The link's own jitter draws.
    private var random: SeededGenerator { _read { yield boundRandom.value } _modify { yield &boundRandom.value } }
    private let boundRandom: LoopBound<SeededGenerator>
    /// Whether the link was reset (a crash, a drop): nothing more goes through.
    var isReset: Bool { _read { yield boundIsReset.value } _modify { yield &boundIsReset.value } }
    private let boundIsReset: LoopBound<Bool>

    /// A link between nodes `nodes`, its ends on `lanes` (each its node's), seen by each side with
    /// the other's address from `remotes`.
    init(network: SimulatedNetwork, id: Int, nodes: (Int, Int), remotes: (String, String), lanes: (Int, Int)) {
        self.network = network
        self.id = id
        self.nodes = nodes
        boundEnds = LoopBound([], owner: network.scheduler.owner)
        boundBusyUntil = LoopBound([0, 0], owner: network.scheduler.owner)
        boundLastArrival = LoopBound([0, 0], owner: network.scheduler.owner)
        boundIsReset = LoopBound(false, owner: network.scheduler.owner)
        boundRandom = LoopBound(SeededGenerator(seed: network.seed &+ UInt64(id) &* 0x9E37_79B9_7F4A_7C15), owner: network.scheduler.owner)
        boundEnds.uncheckedValue = [
            SimulatedChannel(link: self, side: 0, remote: remotes.1, lane: lanes.0),
            SimulatedChannel(link: self, side: 1, remote: remotes.0, lane: lanes.1),
        ]
    }

    /// Whether the link crosses a partition now.
    var isStalled: Bool { network.isPartitioned(nodes.0, nodes.1) }

    /// Sends bytes from end `side`: queued behind what that direction is transmitting, delivered
    /// after the transmission time and latency, never before what was sent earlier.
    func transmit(_ bytes: [UInt8], from side: Int) {
        guard !isReset else { return }
        network.bytesSent += bytes.count
        guard !isStalled else { return }
        let scheduler = network.scheduler
        let conditions = network.conditions
        let departure = max(scheduler.now, busyUntil[side])
        busyUntil[side] = departure + UInt64(bytes.count) * 1_000_000_000 / conditions.bandwidth
        let jitter = conditions.jitter == 0 ? 0 : random.next() % (conditions.jitter + 1)
        let arrival = max(busyUntil[side] + conditions.latency + jitter, lastArrival[side])
        lastArrival[side] = arrival
        let receiver = ends[1 - side]
        scheduler.schedule(at: arrival, lane: receiver.lane) { [weak self] in
            guard let self, !self.isReset, !self.isStalled else { return }
            network.scheduler.record(UInt64(bytes.count))
            receiver.deliver(bytes)
        }
    }

    /// End `side` closed: the other end sees the close after what is in flight.
    func finish(from side: Int) {
        guard !isReset, !isStalled else { return }
        let receiver = ends[1 - side]
        let arrival = max(network.scheduler.now + network.conditions.latency, lastArrival[side])
        lastArrival[side] = arrival
        network.scheduler.schedule(at: arrival, lane: receiver.lane) { [weak self] in
            guard let self, !self.isReset, !self.isStalled else { return }
            receiver.close(reason: "closed by peer", tellPeer: false)
        }
    }

    /// Resets the link: both ends (those whose node still runs) see it closed, after the
    /// latency for the far one; nothing more is delivered.
    func reset(reason: String) {
        guard !isReset else { return }
        isReset = true
        let scheduler = network.scheduler
        for end in ends {
            scheduler.schedule(at: scheduler.now + network.conditions.latency / 2, lane: end.lane) {
                end.close(reason: reason, tellPeer: false)
            }
        }
    }
}
