@testable import GalleryNode
import Testing

/// The liveness pass's schedule (`LivenessDeadlines`): only the connections due come up, in
/// deadline order, each once, whatever was scheduled for them before.
@Suite("Liveness deadlines")
struct LivenessDeadlinesTests {
    /// Every connection due at `now`, in the order they come up.
    static func drain(_ deadlines: inout LivenessDeadlines, now: UInt64) -> [Int] {
        var due: [Int] = []
        while let id = deadlines.popDue(now: now) { due.append(id) }
        return due
    }

    @Test("due connections come up in deadline order, ties by ID; the others stay")
    func order() {
        var deadlines = LivenessDeadlines()
        for (id, deadline) in [(3, 30), (1, 10), (2, 30), (4, 50), (5, 5)] { deadlines.schedule(id, at: UInt64(deadline)) }
        #expect(Self.drain(&deadlines, now: 4).isEmpty)
        #expect(Self.drain(&deadlines, now: 30) == [5, 1, 2, 3])
        #expect(deadlines.count == 1)
        #expect(Self.drain(&deadlines, now: 100) == [4])
        #expect(deadlines.count == 0)
    }

    @Test("a closer deadline wins, a later one waits for the pass to reschedule")
    func earlierWins() {
        var deadlines = LivenessDeadlines()
        deadlines.schedule(1, at: 100)
        deadlines.schedule(1, at: 20)   // Authenticated, or closing: due sooner.
        deadlines.schedule(1, at: 500)  // Ignored: the pass reschedules after looking.
        #expect(Self.drain(&deadlines, now: 19).isEmpty)
        #expect(Self.drain(&deadlines, now: 20) == [1])
        // The stale entry at 100 does not bring it up again.
        #expect(Self.drain(&deadlines, now: 1_000).isEmpty)
        deadlines.schedule(1, at: 1_100)
        #expect(Self.drain(&deadlines, now: 1_100) == [1])
    }

    @Test("a removed connection never comes up")
    func removed() {
        var deadlines = LivenessDeadlines()
        deadlines.schedule(1, at: 10)
        deadlines.schedule(2, at: 10)
        deadlines.remove(1)
        #expect(Self.drain(&deadlines, now: 10) == [2])
    }

    @Test("thousands of connections: each comes up once, at or after its deadline, sorted")
    func many() {
        var deadlines = LivenessDeadlines()
        var generator = SystemRandomNumberGenerator()
        var expected: [(UInt64, Int)] = []
        for id in 0..<5_000 {
            let deadline = UInt64.random(in: 0..<1_000, using: &generator)
            deadlines.schedule(id, at: deadline)
            expected.append((deadline, id))
        }
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var seen: [Int] = []
        for now in stride(from: UInt64(0), through: 1_000, by: 100) { seen += Self.drain(&deadlines, now: now) }
        #expect(seen == expected.map(\.1))
    }
}
