import Foundation
@testable import GalleryModel
@testable import GallerySimulation

/// Checking what the replicas show against what the schedule expects, and against the simulator.
extension RandomSchedule {
    /// Checks that a replica's view is consistent: each item shown once, where `location` says.
    /// Mid-history (`step` non-nil) only the first inconsistency is reported, with its step.
    mutating func checkView(of replica: Int, afterStep step: Int? = nil) {
        if step != nil && !problems.isEmpty { return }
        context = step.map { "after step \($0): " } ?? ""
        defer { context = "" }
        var seen = Set<OpID>()
        for gallery in replicas[replica].galleries {
            let shown = (try? replicas[replica].items(in: gallery)) ?? []
            if (try? replicas[replica].count(in: gallery)) != shown.count {
                problem("\(names[replica]): count(in: \(gallery)) differs from items(in:)")
            }
            for (index, item) in shown.enumerated() {
                if !seen.insert(item.id).inserted {
                    problem("\(names[replica]) shows \(label(item.id)) twice")
                }
                if item.isDeleted || item.gallery != gallery {
                    problem("\(names[replica]) shows \(label(item.id)) in \(gallery) as \(item)")
                }
                if let place = replicas[replica].location(of: item.id), place == (gallery, index) {
                    continue
                }
                problem("\(names[replica]): location(of: \(label(item.id))) is not \(gallery)[\(index)]")
            }
        }
    }

    /// Checks the end state: all replicas equal, and equal to what the history implies.
    mutating func verify() {
        let reference = replicas[0]
        let galleries = createdGalleries.sorted()
        let allOps = Set(reference.ops.map(\.id))
        var lastCounters: [ReplicaID: UInt64] = [:]
        for replica in replicas {
            for op in replica.ops where op.id.replica == replica.id {
                lastCounters[replica.id] = max(lastCounters[replica.id] ?? 0, op.lastCounter)
            }
        }
        if reference.version != VersionVector(lastCounters) {
            problem("\(names[0]) has version \(reference.version), expected \(VersionVector(lastCounters))")
        }
        for (index, replica) in replicas.enumerated() {
            let name = names[index]
            if replica.bufferedCount != 0 || !replica.missingDependencies.isEmpty {
                problem("\(name) still holds \(replica.bufferedCount) ops waiting for \(replica.missingDependencies)")
            }
            if replica.galleries != galleries {
                problem("\(name) has galleries \(replica.galleries), expected \(galleries)")
            }
            if replica.version != reference.version || replica.opCount != reference.opCount
                || Set(replica.ops.map(\.id)) != allOps {
                problem("""
                    \(name) has \(replica.opCount) ops, version \(replica.version); \
                    \(names[0]) has \(reference.opCount), \(reference.version)
                    """)
            }
            checkView(of: index)
            for gallery in galleries {
                let mine = (try? replica.items(in: gallery)) ?? []
                let theirs = (try? reference.items(in: gallery)) ?? []
                if mine.map(\.id) != theirs.map(\.id) {
                    let (left, right) = (describe(mine.map(\.id)), describe(theirs.map(\.id)))
                    problem("\(name) shows \(gallery) as \(left), \(names[0]) as \(right)")
                } else if let (left, right) = zip(mine, theirs).first(where: { $0 != $1 }) {
                    problem("\(name) shows \(left) in \(gallery), \(names[0]) shows \(right)")
                }
            }
            let listed = galleries.flatMap { (try? replica.items(in: $0)) ?? [] }.map(\.id)
            var timesShown: [OpID: Int] = [:]
            for id in listed {
                timesShown[id, default: 0] += 1
                if expectations[id] == nil { problem("\(name) shows \(id), which no insert made") }
            }
            for (id, expected) in expectations.sorted(by: { $0.key < $1.key }) {
                check(id, expected, shown: timesShown[id] ?? 0, on: index)
            }
        }
    }

    /// Checks one item on one replica against the history's record and against the first replica.
    mutating func check(_ id: OpID, _ expected: Expectation, shown: Int, on replica: Int) {
        let name = names[replica]
        guard let item = replicas[replica].item(id) else {
            problem("\(name) does not know \(expected.label) (\(id))")
            return
        }
        if item != replicas[0].item(id) {
            let reference = replicas[0].item(id).map { "\($0)" } ?? "nothing"
            problem("\(name) stores \(expected.label) as \(item), \(names[0]) as \(reference)")
        }
        if expected.deleted {
            if !item.isDeleted || replicas[replica].location(of: id) != nil || shown != 0 {
                problem("\(name) still shows deleted \(expected.label) (\(id)) \(shown) times")
            }
        } else if shown != 1 || item.isDeleted {
            problem("\(name) shows \(expected.label) (\(id)) \(shown) times, isDeleted \(item.isDeleted)")
        }
        if item.gallery != expected.gallery {
            let deleted = expected.deleted ? " (deleted)" : ""
            let place = "\(expected.gallery) of \(expected.galleryStamp)"
            problem("\(name) puts \(expected.label)\(deleted) in \(item.gallery), not \(place)")
        }
        if item.fields != expected.fields {
            problem("\(name) has fields \(item.fields) for \(expected.label), expected \(expected.fields)")
        }
        if item.state != expected.state {
            problem("\(name) has \(expected.label) \(item.state), expected \(expected.state)")
        }
    }

    /// Replays `steps` with `Simulator` (only for histories without subset deliveries) and checks
    /// that it shows what these replicas show.
    mutating func crossCheckSimulator() {
        guard !usesSubsetDelivery else { return }
        let schedule = Schedule(replicas: names, steps: steps)
        do {
            // The printed schedule must be exactly this one, so that a failure replays elsewhere.
            if try Schedule(json: Data(scheduleJSON.utf8)) != schedule {
                problem("scheduleJSON does not read back as the same schedule")
            }
        } catch {
            problem("scheduleJSON does not read back: \(error)")
        }
        let outcome: SimulationOutcome
        do {
            outcome = try Simulator.run(schedule)
        } catch {
            problem("Simulator failed on the same schedule: \(error)")
            return
        }
        if !outcome.converged { problem("Simulator reports no convergence") }
        for (index, name) in names.enumerated() {
            for gallery in createdGalleries.sorted() {
                let mine = ((try? replicas[index].items(in: gallery)) ?? []).map { label($0.id) }
                if outcome.labels(name, gallery) != mine {
                    problem("Simulator shows \(name).\(gallery) as \(outcome.labels(name, gallery)), not \(mine)")
                }
            }
        }
    }
}
