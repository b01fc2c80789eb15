import GalleryIO
@testable import GalleryNode
import Synchronization
import Testing

/// The listener's side of admission alone (`AdmissionController+Accept`), without a node: the
/// pause after failed accepts, and a refused link closed at once with one line on the log.
@Suite struct AcceptAdmissionTests {
    /// A throttled log that keeps its lines.
    private static func recordingLog() -> (ThrottledLog, RecordedLines) {
        let lines = RecordedLines()
        return (ThrottledLog(lines.log, interval: .seconds(3_600)), lines)
    }

    @Test func failedAcceptsPauseLongerEachTimeUpToASecond() {
        let admission = AdmissionController(limits: AdmissionLimits())
        let (log, lines) = Self.recordingLog()
        var pauses: [UInt64] = []
        var pause: UInt64 = 0
        for _ in 0..<10 {
            pause = admission.acceptBackoff(after: .io("accept: EINTR"), previous: pause, node: "a", log: log)
            pauses.append(pause)
        }
        #expect(pauses.first == AdmissionController.minimumAcceptBackoff)
        #expect(pauses[1] == 2 * AdmissionController.minimumAcceptBackoff)
        #expect(pauses.last == AdmissionController.maximumAcceptBackoff)
        #expect(zip(pauses, pauses.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(lines.all == ["a: accept failed: \(TransportError.io("accept: EINTR").localizedDescription)"])
    }

    @Test func outOfDescriptorsWithNothingToShedKeepsBackingOff() {
        let admission = AdmissionController(limits: AdmissionLimits())
        let (log, lines) = Self.recordingLog()
        let pause = admission.acceptBackoff(after: .descriptorsExhausted("EMFILE"), previous: 400_000_000, node: "a", log: log)
        #expect(pause == 800_000_000)
        #expect(lines.all == ["a: accept failed: EMFILE; no unauthenticated connection to shed, pausing"])
    }

    @Test func aLinkOverTheCapIsClosedAtOnceAndLogged() {
        let admission = AdmissionController(limits: AdmissionLimits(maximumUnauthenticated: 8, maximumUnauthenticatedPerAddress: 2))
        let (log, lines) = Self.recordingLog()
        let closed = Mutex(0)
        let first = admission.admit("10.0.0.1:1000", node: "a", log: log) { closed.withLock { $0 += 1 } }
        let second = admission.admit("10.0.0.1:1001", node: "a", log: log) { closed.withLock { $0 += 1 } }
        #expect(first != nil && second != nil)
        #expect(closed.withLock { $0 } == 0)
        let third = admission.admit("10.0.0.1:1002", node: "a", log: log) { closed.withLock { $0 += 1 } }
        #expect(third == nil)
        #expect(closed.withLock { $0 } == 1)
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasPrefix("a: refused a connection from 10.0.0.1:1002:") == true)
        // Another address still gets in.
        #expect(admission.admit("10.0.0.2:1000", node: "a", log: log) { closed.withLock { $0 += 1 } } != nil)
    }
}
