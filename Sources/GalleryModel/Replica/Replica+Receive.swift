/// Delivery of ops from peers: exactly once, after their dependencies, early ones buffered.
extension Replica {
    /// Takes an op from a peer: applies it (and any held ops it unblocks), holds it until its
    /// dependencies arrive, drops it as a duplicate, or refuses it.
    ///
    /// - Complexity: that of applying the op and the ops it releases; O(1) expected to buffer.
    @discardableResult
    package mutating func receive(_ op: Op) -> ReceiveOutcome {
        receive(op) { _ in }
    }

    /// Takes an op from a peer like `receive(_:)`, and calls `applied` with each op applied because
    /// of it, in order: the op itself, then the held ops it released (what to relay to others).
    @discardableResult
    package mutating func receive(_ op: Op, applied: (Op) -> Void) -> ReceiveOutcome {
        if let dependency = op.dependencyNotOlder {
            return .rejected(.malformedOp(op.id, "depends on \(dependency), which is not older than the op"))
        }
        switch readiness(of: op) {
        case .duplicate:
            return holdsDifferentVersion(of: op) ? .rejected(.divergentOp(op.id)) : .duplicate
        case .conflicting:
            return .rejected(.conflictingHistory(op.id))
        case .waiting(let dependency):
            guard buffer.hold(op, until: dependency) else { return .rejected(.bufferFull(op.id)) }
            return .buffered(waitingFor: dependency)
        case .ready:
            do {
                try apply(op)
            } catch {
                return .rejected(error)
            }
            applied(op)
            return .applied(released: releaseHeldOps(after: op, applied: applied))
        }
    }

    /// Applies the held ops that `op` unblocked, and those they unblock in turn.
    private mutating func releaseHeldOps(after op: Op, applied: (Op) -> Void) -> Int {
        var released = 0
        var queue = buffer.release(replica: op.id.replica, counters: op.id.counter...op.lastCounter)
        while let next = queue.popLast() {
            switch readiness(of: next) {
            case .ready:
                // A held op that turns out malformed is dropped: it was refused, not lost.
                guard (try? apply(next)) != nil else { continue }
                applied(next)
                released += 1
                queue += buffer.release(replica: next.id.replica, counters: next.id.counter...next.lastCounter)
            case .waiting(let dependency):
                _ = buffer.hold(next, until: dependency)
            case .duplicate, .conflicting:
                continue
            }
        }
        return released
    }

    private enum Readiness {
        case ready
        case duplicate
        case conflicting
        case waiting(OpID)
    }

    /// Whether an op can be applied now, and if not, why.
    @inline(__always)
    private func readiness(of op: Op) -> Readiness {
        // An op always comes after its predecessor; one that does not can never become ready.
        if op.previous >= op.id.counter { return .conflicting }
        let applied = table.appliedCounter(of: op.id.replica)
        if op.id.counter <= applied || (buffer.count > 0 && buffer.isHolding(op.id)) { return .duplicate }
        if applied < op.previous { return .waiting(OpID(counter: op.previous, replica: op.id.replica)) }
        if applied > op.previous { return .conflicting }
        switch op.action {
        case .createGallery:
            break
        case .insert(_, let after, let before, _):
            if let after, !table.contains(after) { return .waiting(after) }
            if let before, !table.contains(before) { return .waiting(before) }
        case .move(let item, _, let after, let before):
            if !table.contains(item) { return .waiting(item) }
            if let after, !table.contains(after) { return .waiting(after) }
            if let before, !table.contains(before) { return .waiting(before) }
        case .delete(let item), .update(let item, _, _), .commit(let item):
            if !table.contains(item) { return .waiting(item) }
        }
        return .ready
    }
}
