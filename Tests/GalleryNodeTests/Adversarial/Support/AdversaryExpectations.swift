import Foundation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    /// A bad connection: closed by A, only Noise message 2 (when `welcome`: the client's opening was
    /// valid) and at most one `error` received, ending with the expected error code.
    static func expectRefused(_ talk: Conversation, code: ErrorCode?, welcome: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(talk.end.isClosedByPeer, "\(talk.label): \(talk.end) after \(talk.elapsed)", sourceLocation: sourceLocation)
        let types = talk.frames.map(\.knownType)
        // Nothing beyond message 2 without proving the secret.
        #expect(types.allSatisfy { $0 == .noiseHandshake || $0 == .error }, "\(talk.label): \(describe(talk.frames))",
                sourceLocation: sourceLocation)
        #expect(types.filter { $0 == .noiseHandshake }.count == (welcome ? 1 : 0), "\(talk.label): \(describe(talk.frames))",
                sourceLocation: sourceLocation)
        if let code {
            #expect(errorCode(talk.frames.last) == code, "\(talk.label): \(describe(talk.frames))", sourceLocation: sourceLocation)
        } else {
            #expect(!types.contains(.error), "\(talk.label): \(describe(talk.frames))", sourceLocation: sourceLocation)
        }
        #expect(talk.elapsed < .seconds(5), "\(talk.label): took \(talk.elapsed)", sourceLocation: sourceLocation)
    }

    /// B and A still exchange ops in both directions, and converge.
    static func expectServing(_ cluster: TestCluster, label: String, round: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let a = cluster.nodes[0]
        let b = cluster.nodes[1]
        do {
            let fromA = try a.perform { try $0.insert([.titled("a\(round)")], into: "g", at: 0) }
            let fromB = try b.perform { try $0.insert([.titled("b\(round)")], into: "g", at: 0) }
            #expect(b.wait(timeout: .seconds(10)) { $0.contains(fromA.id) }, "\(label): A's op did not reach B",
                    sourceLocation: sourceLocation)
            #expect(a.wait(timeout: .seconds(10)) { $0.contains(fromB.id) }, "\(label): B's op did not reach A",
                    sourceLocation: sourceLocation)
            #expect(cluster.waitForConvergence(timeout: .seconds(10)), "\(label)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(label): \(error)", sourceLocation: sourceLocation)
        }
    }

    static func errorCode(_ frame: Frame?) -> ErrorCode? {
        guard let frame, case .error(let code, _)? = try? Message(frame: frame) else { return nil }
        return code
    }

    static func describe(_ frames: [Frame]) -> String {
        frames.map { frame in
            if let message = try? Message(frame: frame), case .error(let code, let text) = message { return "error \(code) \"\(text)\"" }
            return frame.knownType.map { "\($0)" } ?? "type \(frame.type)"
        }.joined(separator: ", ")
    }
}
