/// Everything a mesh simulation run depends on: the same parameters (the seed among them) give
/// the same run, event for event. `commandLine` is the one-line command that replays it.
package struct MeshParameters: Sendable, Hashable {
    /// Seeds everything random: topology, latencies, workload, faults, backoff jitter.
    package var seed: UInt64 = 1
    /// How many nodes run.
    package var nodes = 50
    /// Who dials whom.
    package var topology = MeshTopology.random
    /// Links per node in the random topology.
    package var degree = 4
    /// One-way link latency, milliseconds.
    package var latencyMilliseconds = 10
    /// Up to this much more latency per transmission, drawn per link, milliseconds.
    package var jitterMilliseconds = 2
    /// Bytes per second per link direction.
    package var bandwidth: UInt64 = 12_500_000
    /// Simulated seconds of workload (and faults), after a warm-up in which the mesh connects.
    package var seconds = 60
    /// Ops made per simulated second, over the whole mesh.
    package var opsPerSecond = 5
    /// Fraction of the nodes crashed (and restarted 1-10 s later) per simulated minute.
    package var churnPerMinute = 0.0
    /// Links dropped per simulated minute, over the whole mesh.
    package var linkDropsPerMinute = 0
    /// Whether the mesh is split in two halves for a fifth of the workload.
    package var partition = false
    /// The time a group commit's write and fsync take, milliseconds.
    package var fsyncMilliseconds = 2
    /// How long after the workload (and every fault) ends the mesh may take to converge.
    package var healSeconds = 120
    /// A deliberately broken node, to prove the checker catches it.
    package var sabotage = Sabotage.none
    /// Whether the nodes send ops in `ops` frames only (`NodeConfiguration.compactOps` off): the
    /// baseline against which `ops_compact` is measured.
    package var plainOps = false
    /// Whether a child of a root that withholds ops deposes it (`NodeConfiguration
    /// .deposesWithholdingRoot`); false (`--no-depose`) is the baseline that keeps any root.
    package var deposes = true
    /// Whether a node whose relay parent withholds ops (or passes a trickle) leaves it, and a
    /// root's child deposes a trickling root (`NodeConfiguration.leavesLaggingParent`); false
    /// (`--no-leave`) is the baseline that watches only a root's silence.
    package var leaves = true

    /// A deliberate fault the node core is not built to survive.
    package enum Sabotage: String, Sendable, CaseIterable {
        case none
        /// Node 0's storage lies about fsync: at a crash it loses its last batch although it was
        /// reported durable (and sent); node 0 is crashed once mid-run.
        case lyingFsync = "lying-fsync"
        /// Node 0 is a member that claims the oldest root (a `since` a million seconds before
        /// everyone's) and withholds every op it should pass on: it sends no `ops`,
        /// `ops_compact`, `ihave`, `ihave_total` or `caught_up`, and makes no ops of its own.
        case silentRoot = "silent-root"
        /// Node 0 claims the oldest root (and relays honestly); node 1, its neighbour, so a parent
        /// one link below the root, withholds as the silent root does, and makes no ops.
        case withholdingParent = "withholding-parent"
        /// Node 0 claims the oldest root and passes on, per link, one `ops` or `ops_compact`
        /// frame a second (`trickleInterval`; no `ihave`, `ihave_total` or `caught_up`), and
        /// makes no ops: a trickle that restarts a watch of the root's silence at every child.
        case trickleRoot = "trickle-root"

        /// How long after a frame of ops passes the trickling root on a link the next may.
        package static let trickleInterval: UInt64 = 1_000_000_000

        /// The hostile node's index, if any.
        package var saboteur: Int? {
            switch self {
            case .silentRoot, .trickleRoot: 0
            case .withholdingParent: 1
            case .none, .lyingFsync: nil
            }
        }

        /// Whether node 0 claims the oldest root (a `since` a million seconds before everyone's).
        var claimsOldestRoot: Bool { saboteur != nil }
    }

    package init() {}

    /// The command that replays this run.
    package var commandLine: String {
        var words = ["gallery-bench", "mesh-sim", "--seed", "\(seed)", "--nodes", "\(nodes)", "--topology", topology.rawValue,
                     "--degree", "\(degree)", "--latency-ms", "\(latencyMilliseconds)", "--jitter-ms", "\(jitterMilliseconds)",
                     "--bandwidth", "\(bandwidth)", "--seconds", "\(seconds)", "--ops-per-second", "\(opsPerSecond)",
                     "--churn", "\(churnPerMinute)", "--link-drops", "\(linkDropsPerMinute)",
                     "--fsync-ms", "\(fsyncMilliseconds)", "--heal-seconds", "\(healSeconds)"]
        if partition { words.append("--partition") }
        if plainOps { words.append("--plain-ops") }
        if !deposes { words.append("--no-depose") }
        if !leaves { words.append("--no-leave") }
        if sabotage != .none { words += ["--sabotage", sabotage.rawValue] }
        return words.joined(separator: " ")
    }

    /// Why arguments could not be read.
    package struct UsageError: Error, Sendable {
        /// What is wrong, in one line.
        package let message: String
    }

    /// Reads `mesh-sim` arguments (those after `mesh-sim`); unknown or malformed ones throw.
    package static func parse(_ arguments: [String]) throws(UsageError) -> MeshParameters {
        var parameters = MeshParameters()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--partition" {
                parameters.partition = true
                continue
            }
            if flag == "--plain-ops" {
                parameters.plainOps = true
                continue
            }
            if flag == "--no-depose" {
                parameters.deposes = false
                continue
            }
            if flag == "--no-leave" {
                parameters.leaves = false
                continue
            }
            guard let value = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            func number<T: LosslessStringConvertible>(_: T.Type) throws(UsageError) -> T {
                guard let parsed = T(value) else { throw UsageError(message: "\(flag): not a number: \(value)") }
                return parsed
            }
            switch flag {
            case "--seed": parameters.seed = try number(UInt64.self)
            case "--nodes": parameters.nodes = try number(Int.self)
            case "--topology":
                guard let topology = MeshTopology(rawValue: value) else {
                    throw UsageError(message: "--topology: one of \(MeshTopology.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                parameters.topology = topology
            case "--degree": parameters.degree = try number(Int.self)
            case "--latency-ms": parameters.latencyMilliseconds = try number(Int.self)
            case "--jitter-ms": parameters.jitterMilliseconds = try number(Int.self)
            case "--bandwidth": parameters.bandwidth = try number(UInt64.self)
            case "--seconds": parameters.seconds = try number(Int.self)
            case "--ops-per-second": parameters.opsPerSecond = try number(Int.self)
            case "--churn": parameters.churnPerMinute = try number(Double.self)
            case "--link-drops": parameters.linkDropsPerMinute = try number(Int.self)
            case "--fsync-ms": parameters.fsyncMilliseconds = try number(Int.self)
            case "--heal-seconds": parameters.healSeconds = try number(Int.self)
            case "--sabotage":
                guard let sabotage = Sabotage(rawValue: value) else { throw UsageError(message: "--sabotage: unknown \(value)") }
                parameters.sabotage = sabotage
            default: throw UsageError(message: "unknown argument \(flag)")
            }
        }
        guard parameters.nodes >= 2, parameters.nodes <= 5_000 else { throw UsageError(message: "--nodes: 2 to 5000") }
        guard parameters.degree >= 2, parameters.seconds >= 1, parameters.opsPerSecond >= 0, parameters.latencyMilliseconds >= 0,
              parameters.jitterMilliseconds >= 0, parameters.fsyncMilliseconds >= 0, parameters.healSeconds >= 1,
              parameters.churnPerMinute >= 0, parameters.churnPerMinute <= 1, parameters.linkDropsPerMinute >= 0 else {
            throw UsageError(message: "a value is out of range")
        }
        return parameters
    }
}
