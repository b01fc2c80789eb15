import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryWire
import Synchronization

/// One node of the mesh across its crashes: its identity and storage persist; each incarnation
/// is a real `SyncNode` on lanes of the scheduler (inbox, timers, durability step, channel ends)
/// that all die at a crash, with whatever was not yet synced.
/// Its state is `LoopBound` to the simulation's thread (`SimulationScheduler.owner`).
final class SimulatedNode: Sendable {
    /// The node's index (its address).
    let index: Int
    /// Its replica ID, the same in every incarnation.
    let replicaID: ReplicaID
    /// Its static key (its node ID), the same in every incarnation as `DIR/node.key` keeps it,
    /// drawn from the run's seed and the node's index.
    let staticKey: X25519.PrivateKey
    /// Its storage, outliving crashes.
    let store = SimulatedOpStore()
    /// The peers this node dials.
    let dials: [Int]
    /// The running incarnation, nil while crashed.
    var node: SyncNode? { _read { yield boundNode.value } _modify { yield &boundNode.value } }
    private let boundNode: LoopBound<SyncNode?>
    /// The incarnation's lanes: inbox, timers, durability step.
    private var lanes: [Int] { _read { yield boundLanes.value } _modify { yield &boundLanes.value } }
    private let boundLanes: LoopBound<[Int]>
    /// The incarnation's workers (their lane, once used, dies with the others at a crash).
    private var workers: SimulatedWorkPool? { _read { yield boundWorkers.value } _modify { yield &boundWorkers.value } }
    private let boundWorkers: LoopBound<SimulatedWorkPool?>
    /// The incarnation's transport (it holds the lanes of dialed channel ends).
    private var transport: SimulatedTransport? { _read { yield boundTransport.value } _modify { yield &boundTransport.value } }
    private let boundTransport: LoopBound<SimulatedTransport?>
    /// Incarnations started so far.
    var incarnations: Int { _read { yield boundIncarnations.value } _modify { yield &boundIncarnations.value } }
    private let boundIncarnations: LoopBound<Int>
    /// Whether the storage forgets its last batch at a crash although it reported it durable.
    var lyingFsync: Bool { _read { yield boundLyingFsync.value } _modify { yield &boundLyingFsync.value } }
    private let boundLyingFsync: LoopBound<Bool>
    /// Changes each incarnation's configuration before it starts (a test's knobs).
    var configure: ((inout NodeConfiguration) -> Void)? {
        get { boundConfigure.value }
        set { boundConfigure.value = newValue }
    }
    private let boundConfigure: LoopBound<((inout NodeConfiguration) -> Void)?>

    /// A node not yet started, of the run seeded with `seed`, run by `owner`'s thread.
    init(index: Int, dials: [Int], seed: UInt64, owner: OwningThread) {
        self.index = index
        self.replicaID = ReplicaID(deriving: "mesh node \(index)")
        var keys = SeededGenerator(seed: seed ^ 0x6e6f_6465_206b_6579 ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        self.staticKey = X25519.PrivateKey(using: &keys)
        self.dials = dials
        boundNode = LoopBound(nil, owner: owner)
        boundLanes = LoopBound([], owner: owner)
        boundWorkers = LoopBound(nil, owner: owner)
        boundTransport = LoopBound(nil, owner: owner)
        boundIncarnations = LoopBound(0, owner: owner)
        boundLyingFsync = LoopBound(false, owner: owner)
        boundConfigure = LoopBound(nil, owner: owner)
    }

    /// The calendar time (seconds since 1970) at the simulation's start, for the address books.
    static let epoch: Double = 1_800_000_000

    var isUp: Bool { node != nil }

    /// Starts an incarnation on the replica its storage holds.
    func start(network: SimulatedNetwork, parameters: MeshParameters) {
        guard node == nil else { return }
        incarnations += 1
        let scheduler = network.scheduler
        let inbox = scheduler.makeLane(), timers = scheduler.makeLane(), durability = scheduler.makeLane()
        let workers = SimulatedWorkPool(scheduler: scheduler)
        let transport = SimulatedTransport(network: network, index: index, lane: timers)
        let random = RandomSource(seed: parameters.seed ^ (UInt64(index) << 20) ^ (UInt64(incarnations) << 44))
        let fsync = UInt64(parameters.fsyncMilliseconds) * 1_000_000
        var configuration = NodeConfiguration(
            name: "n\(index)", secret: Array("mesh simulation secret".utf8), staticKey: staticKey, listen: SimulatedNetwork.endpoint(of: index),
            peers: dials.map(SimulatedNetwork.endpoint(of:)), log: .silent, store: store)
        configuration.admission = AdmissionLimits(maximumUnauthenticated: 100_000, maximumUnauthenticatedPerAddress: 100_000)
        configuration.environment = NodeEnvironment(
            clock: SimulatedClock(scheduler: scheduler, lane: timers),
            makeInbox: { _ in SimulatedExecutor(scheduler: scheduler, lane: inbox) },
            runDurability: { step in scheduler.schedule(after: fsync, lane: durability, step) },
            random: { random.next() }, transport: transport,
            wallClock: { [hijacks = parameters.sabotage.claimsOldestRoot && index == 0] in
                SimulatedNode.epoch - (hijacks ? 1_000_000 : 0) + Double(scheduler.now) / 1e9
            })
        configuration.environment.wireTally = network.tally
        configuration.environment.makeWorkPool = { _ in workers }
        if parameters.sabotage.saboteur == index {
            switch parameters.sabotage {
            case .trickleRoot:
                configuration.environment.withheldFrames = [.ihave, .ihaveTotal, .caughtUp]
                let gate = TrickleGate(interval: MeshParameters.Sabotage.trickleInterval)
                configuration.environment.withholds = { type, link in
                    (type == .ops || type == .opsCompact) && gate.withholds(on: link, now: scheduler.now)
                }
            default:
                configuration.environment.withheldFrames = [.ops, .opsCompact, .ihave, .ihaveTotal, .caughtUp]
            }
        }
        configuration.compactOps = !parameters.plainOps
        // The hostile node only withholds: it judges no parent of its own (the withholding
        // parent, fed by its former children's pushes, would find the honest root lagging).
        let judges = parameters.sabotage.saboteur != index
        configuration.deposesWithholdingRoot = parameters.deposes && judges
        configuration.leavesLaggingParent = parameters.leaves && judges
        configure?(&configuration)
        let node = SyncNode(configuration: configuration, replica: store.replay(id: replicaID))
        self.node = node
        self.transport = transport
        lanes = [inbox, timers, durability]
        self.workers = workers
        // A simulated transport neither fails to listen nor throws.
        _ = try? node.start()
    }

    /// Crashes the incarnation: its lanes die (queued work, timers, the unsynced group commit),
    /// its links reset; storage keeps what was synced.
    func crash(network: SimulatedNetwork) {
        guard node != nil else { return }
        for lane in lanes + (transport?.ownedLanes ?? []) + (workers?.lane.map { [$0] } ?? []) { network.scheduler.kill(lane) }
        network.crash(index)
        if lyingFsync { store.forgetLastBatch() }
        node = nil
        transport = nil
        workers = nil
        lanes = []
    }
}

/// A seeded generator shared by reference with the node's backoff (`NodeEnvironment.random`).
final class RandomSource: Sendable {
    private let generator: Mutex<SeededGenerator>

    /// A source seeded with `seed`.
    init(seed: UInt64) { generator = Mutex(SeededGenerator(seed: seed)) }

    /// The next number.
    func next() -> UInt64 { generator.withLock { $0.next() } }
}
