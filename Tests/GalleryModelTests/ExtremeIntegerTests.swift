@testable import GalleryModel
import GallerySimulation
import Testing

/// Received ops with extreme integers (0, 1, 2^32, 2^48 - 1, 2^63, 2^64 - 1) in every integer field,
/// encoded and decoded through the real codec: the codec or the replica refuses them cleanly (no
/// trap), no op moves the clock more than `Replica.maxCounterLead` past what the replica knew, and
/// the replica can always author its next op.
@Suite("Extreme integers in received ops")
struct ExtremeIntegerTests {
    static let extremes: [UInt64] = [0, 1, 1 << 32, (1 << 48) - 1, 1 << 63, .max]

    /// A replica that knows a gallery and an item of another replica, `sender`, whose chain is at
    /// `sender`'s last op.
    static func receiver() throws -> (replica: Replica, sender: Replica) {
        var sender = Replica(id: ReplicaID(deriving: "sender"))
        _ = try sender.createGallery("g")
        _ = try sender.insert([ItemDraft(fields: [.title: .text("a")])], into: "g", at: 0)
        var replica = Replica(id: ReplicaID(deriving: "receiver"))
        for op in sender.ops { replica.receive(op) }
        return (replica, sender)
    }

    /// The op as a peer would get it: encoded, then decoded (nil when the codec refuses it).
    static func throughCodec(_ op: Op) -> Op? {
        try? OpCodec.decode(OpCodec.encode([op])).first
    }

    @Test("The probe's op: counter 2^64-1 with gap 2^64-1 is refused, not a trap; so is an insert at 2^48-1")
    func probe() throws {
        var (replica, sender) = try Self.receiver()
        let clock = replica.lamportClock
        let overflow = Op(id: OpID(counter: .max, replica: sender.id), previous: 0,
                          action: .createGallery(name: "x"))
        #expect(replica.receive(overflow) == .rejected(.counterOverflow(overflow.id)))
        let last = sender.ops.last!
        let far = Op(id: OpID(counter: (1 << 48) - 1, replica: sender.id), previous: last.lastCounter,
                     action: .insert(gallery: "g", after: nil, before: nil, items: [ItemDraft()]))
        let decoded = try #require(Self.throughCodec(far))
        #expect(replica.receive(decoded) == .rejected(.counterTooFarAhead(far.id, highestKnown: clock)))
        // Just inside the bound is taken; the space still has room for everyone's next op.
        let near = Op(id: OpID(counter: clock + Replica.maxCounterLead, replica: sender.id), previous: last.lastCounter,
                      action: .insert(gallery: "g", after: nil, before: nil, items: [ItemDraft()]))
        #expect(replica.receive(try #require(Self.throughCodec(near))) == .applied(released: 0))
        let next = try replica.createGallery("mine")
        #expect(next.id.counter == clock + Replica.maxCounterLead + 1)
        // An insert whose last item would pass the bound is refused though its first is inside.
        let straddling = Op(id: OpID(counter: replica.lamportClock + Replica.maxCounterLead, replica: sender.id),
                            previous: near.lastCounter,
                            action: .insert(gallery: "g", after: nil, before: nil, items: [ItemDraft(), ItemDraft()]))
        if case .rejected(.counterTooFarAhead) = replica.receive(straddling) {} else {
            Issue.record("an insert reaching past the bound was not refused")
        }
    }

    @Test("Seeded property: ops with extreme values in every integer field are refused cleanly or kept within the bound",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func property(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var (replica, sender) = try Self.receiver()
        let item = sender.ops[1].id
        var refusedByCodec = 0, refusedByReplica = 0
        func pick() -> UInt64 {
            // Mostly extremes; sometimes a value near the replica's clock, so that some ops are legal.
            if Int.random(in: 0..<4, using: &generator) == 0 {
                return replica.lamportClock &+ UInt64.random(in: 0...3, using: &generator)
            }
            return Self.extremes.randomElement(using: &generator)!
        }
        for round in 0..<400 {
            let counter = pick(), previous = pick()
            let reference = OpID(counter: pick(), replica: Bool.random(using: &generator) ? sender.id : ReplicaID(pick()))
            let target = Bool.random(using: &generator) ? item : reference
            let action: Op.Action
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: action = .createGallery(name: "g\(round % 3)")
            case 1: action = .insert(gallery: "g", after: Bool.random(using: &generator) ? reference : nil, before: nil,
                                     items: (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                                         ItemDraft(fields: [.byteSize: .integer(Int64(bitPattern: pick()))])
                                     })
            case 2: action = .move(item: target, gallery: "g", after: nil, before: Bool.random(using: &generator) ? reference : nil)
            case 3: action = .delete(item: target)
            case 4: action = .update(item: target, field: .byteSize, value: .integer(Int64(bitPattern: pick())))
            case 5: action = .update(item: target, field: .origin, value: .id(reference))
            default: action = .commit(item: target)
            }
            let op = Op(id: OpID(counter: counter, replica: sender.id), previous: previous, action: action)
            guard let decoded = Self.throughCodec(op) else {
                refusedByCodec += 1
                continue
            }
            let clock = replica.lamportClock
            let outcome = replica.receive(decoded)
            let context = "seed \(seed), round \(round): \(decoded) -> \(outcome)"
            let beyond = decoded.lastCounter > clock && decoded.lastCounter - clock > Replica.maxCounterLead
            switch outcome {
            case .rejected:
                refusedByReplica += 1
                if beyond {
                    let expected = decoded.lastCounter > (1 << 48) - 1
                        ? ReceiveOutcome.rejected(.counterOverflow(decoded.id))
                        : .rejected(.counterTooFarAhead(decoded.id, highestKnown: clock))
                    #expect(outcome == expected, "\(context)")
                }
            case .applied, .buffered, .duplicate:
                #expect(!beyond, "\(context)")
            }
            #expect(replica.lamportClock <= clock + Replica.maxCounterLead, "\(context)")
        }
        // Whatever came, this replica can still author an op, and most extremes were refused somewhere.
        _ = try replica.createGallery("after")
        #expect(refusedByCodec + refusedByReplica > 200)
    }

    @Test("An op's last counter saturates instead of overflowing, and an empty insert's is its first")
    func lastCounter() {
        let replica = ReplicaID(1)
        let wide = Op(id: OpID(counter: .max - 1, replica: replica), previous: 0,
                      action: .insert(gallery: "g", after: nil, before: nil, items: [ItemDraft(), ItemDraft(), ItemDraft()]))
        #expect(wide.lastCounter == .max)
        let empty = Op(id: OpID(counter: 5, replica: replica), previous: 0,
                       action: .insert(gallery: "g", after: nil, before: nil, items: []))
        #expect(empty.lastCounter == 5)
    }
}
