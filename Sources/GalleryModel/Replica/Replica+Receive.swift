/// Delivery of ops from peers: exactly once, after their dependencies, early ones buffered.
extension Replica {
    /// How far beyond the greatest counter this replica knows (its Lamport clock) a received op's
    /// counters may reach: 2^32. Counters have 48 bits, so one op can take at most 1/65,536 of the
    /// space; a correct replica's counter is one above the clock it has, and it cannot have seen
    /// 2^32 more ops than another member without that member seeing any of them.
    package static let maxCounterLead: UInt64 = 1 << 32

    /// Takes an op from a peer: applies it (and any held ops it unblocks), holds it until its
    /// dependencies arrive, drops it as a duplicate, or refuses it.
    ///
    /// - Parameter source: Who sent the op, a key the caller chooses (a node, its connection): an
    ///   op that must wait counts against that source's quota of early ops, and goes with
    ///   `dropWaitingOps(from:)`. Nil for ops that come from no peer (the node's own files).
    /// - Complexity: that of applying the op and the ops it releases; O(1) expected to buffer.
    @discardableResult
    package mutating func receive(_ op: Op, from source: Int? = nil) -> ReceiveOutcome {
        receive(op, from: source) { _ in }
    }

    /// Takes an op from a peer like `receive(_:from:)`, and calls `applied` with each op applied
    /// because of it, in order: the op itself, then the held ops it released (what to relay to others).
    @discardableResult
    package mutating func receive(_ op: Op, from source: Int? = nil, applied: (Op) -> Void) -> ReceiveOutcome {
        // Before anything else, so that no arithmetic below meets a counter near 2^64.
        if op.lastCounter > PackedID.maxCounter { return .rejected(.counterOverflow(op.id)) }
        if op.lastCounter > clock, op.lastCounter - clock > Self.maxCounterLead {
            return .rejected(.counterTooFarAhead(op.id, highestKnown: clock))
        }
        if let dependency = op.dependencyNotOlder {
            return .rejected(.malformedOp(op.id, "depends on \(dependency), which is not older than the op"))
        }
        switch readiness(of: op) {
        case .duplicate:
            if holdsDifferentVersion(of: op) { return .rejected(.divergentOp(op.id)) }
            // A second sender of a waiting op shares it: the op stays if the first one leaves.
            if let source, buffer.count > 0 { buffer.claim(op.id, for: source) }
            return .duplicate
        case .conflicting:
            return .rejected(.conflictingHistory(op.id))
        case .waiting(let dependency):
            do {
                try buffer.hold(op, until: dependency, source: source ?? CausalBuffer.unattributed)
            } catch .sourceFull {
                return .rejected(.sourceQuotaExceeded(op.id, source: source ?? CausalBuffer.unattributed))
            } catch {
                return .rejected(.bufferFull(op.id))
            }
            return .buffered(waitingFor: dependency)
        case .ready:
            if source != nil, let forged = authenticationFailure(of: op) { return .rejected(forged) }
            let before = opCount
            do {
                try apply(op)
            } catch {
                return .rejected(error)
            }
            assert(opCount == before + 1, "an applied op is one entry of the log")
            assert(version[op.id.replica] >= op.lastCounter, "the version vector covers an applied op")
            applied(op)
            return .applied(released: releaseHeldOps(after: op, applied: applied))
        }
    }

    /// Applies the held ops that `op` unblocked, and those they unblock in turn.
    private mutating func releaseHeldOps(after op: Op, applied: (Op) -> Void) -> Int {
        var released = 0
        var queue = buffer.release(replica: op.id.replica, counters: op.id.counter...op.lastCounter)
        while let entry = queue.popLast() {
            let next = entry.op
            switch readiness(of: next) {
            case .ready:
                // A held op that turns out malformed or forged is dropped: it was refused, not lost.
                if !entry.sources.contains(CausalBuffer.unattributed), let forged = authenticationFailure(of: next) {
                    forgedHeldOps.append(ForgedHeldOp(error: forged, sources: entry.sources))
                    continue
                }
                guard (try? apply(next)) != nil else { continue }
                applied(next)
                released += 1
                queue += buffer.release(replica: next.id.replica, counters: next.id.counter...next.lastCounter)
            case .waiting(let dependency):
                buffer.rehold(entry, until: dependency)
            case .duplicate, .conflicting:
                continue
            }
        }
        return released
    }

    /// Forgets `source`'s early ops (a peer that left): those no other source sent leave the
    /// buffer. Returns how many left. Ops a correct peer sent come again from the others: the
    /// caller asks them for what its version vector lacks.
    ///
    /// - Complexity: O(h) for the h ops held for `source`.
    @discardableResult
    package mutating func dropWaitingOps(from source: Int) -> Int {
        buffer.drop(source: source)
    }

    /// Sets the limits of early ops held from now on; the ops already held stay (a replay of the
    /// node's own files may hold more than a running node takes from its peers).
    package mutating func limitBuffer(to limits: BufferLimits) {
        buffer.limits = limits
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
        case .createGallery, .renameGallery, .deleteGallery:
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
