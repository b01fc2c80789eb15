import Foundation
import GalleryWire

/// What the node core takes from its surroundings besides storage: the clocks, the executors of
/// its inbox and of its group commit's durability step, randomness (backoff jitter, handshake
/// ephemeral keys), and optionally a transport. `production` is today's threads and event loops; `GalleryMeshSimulation` supplies a
/// deterministic one so that hundreds of real nodes run on one seeded scheduler.
package struct NodeEnvironment: Sendable {
    /// The time, and timers for a node on a `transport`.
    package var clock: any NodeClock
    /// Makes the node's serial inbox, named for debuggers.
    package var makeInbox: @Sendable (_ name: String) -> any NodeExecutor
    /// Runs a group-commit writer's durability step (store and sync what waits) off the inbox;
    /// nil: on the writer's own parked thread (`GroupCommit`).
    package var runDurability: (@Sendable (_ step: @escaping @Sendable () -> Void) -> Void)?
    /// The calendar time in seconds since 1970: the address book's timestamps.
    package var wallClock: @Sendable () -> Double
    /// Random numbers: reconnect jitter and the handshakes' ephemeral keys, so it must be
    /// cryptographically secure outside a simulation.
    package var random: @Sendable () -> UInt64
    /// Where peers are accepted and dialed instead of sockets (`NodeConfiguration.io` is then
    /// ignored); nil in production.
    package var transport: (any NodeTransport)?
    /// Where the node's connections count what they write, by frame type (a simulation's
    /// report); nil in production.
    package var wireTally: WireTally?
    /// Hands memory freed by the process back to the system; called when a transfer burst ends
    /// (every download done, many bytes received since the last call). The host sets it (glibc's
    /// `malloc_trim`, `MallocArenas.releaseFreed`); nothing by default.
    package var releaseFreedMemory: @Sendable () -> Void = {}
    /// Frame types the node never sends: a hostile member in a simulation (one that withholds
    /// the ops it should relay, `MeshParameters.Sabotage.silentRoot`); empty in production.
    package var withheldFrames: Set<FrameType> = []
    /// Whether the node withholds a frame of this type it is about to send on the connection
    /// with this ID (asked for each one, after `withheldFrames`): a hostile member that passes on
    /// only some frames (a trickle, `MeshParameters.Sabotage.trickleRoot`); nil in production.
    package var withholds: (@Sendable (FrameType, Int) -> Bool)?
    /// Makes the node's pool of workers (`NodeWorkPool`): transfers, thumbnails, the answers to
    /// `holds_query` and the op log mirror's fsync run on it, named for debuggers.
    package var makeWorkPool: @Sendable (_ name: String) -> any NodeWorkPool = { WorkPool(name: $0) }

    package init(
        clock: any NodeClock, makeInbox: @escaping @Sendable (String) -> any NodeExecutor,
        runDurability: (@Sendable (@escaping @Sendable () -> Void) -> Void)?,
        random: @escaping @Sendable () -> UInt64, transport: (any NodeTransport)?,
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.makeInbox = makeInbox
        self.runDurability = runDurability
        self.random = random
        self.transport = transport
    }

    /// Today's node: the uptime clock, the system's calendar, a `WorkThread` inbox, the group
    /// commit's own parked writer thread, the system's secure generator.
    package static let production = NodeEnvironment(
        clock: SystemClock(), makeInbox: { WorkThread(name: $0) },
        runDurability: nil,
        random: { UInt64.random(in: .min ... .max) }, transport: nil)
}

/// A random number generator over `NodeEnvironment.random`.
struct EnvironmentRandom: RandomNumberGenerator {
    let source: @Sendable () -> UInt64

    mutating func next() -> UInt64 { source() }
}
