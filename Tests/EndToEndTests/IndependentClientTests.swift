import Foundation
import GalleryTestSupport
import Testing

/// A client written from protocol.md alone (`Tests/Conformance/independent_client.py`,
/// Python 3 standard library only, none of this package's code) speaks to a real `gallery serve`:
/// the RFC vectors and every golden frame of section 16, then the handshake, catch-up, pushed and
/// live ops, blob fetches and the error cases, checked against `gallery -C DIR list/status --json`.
@Suite("Independent client from protocol.md", .serialized)
struct IndependentClientTests {
    /// python3 on the PATH; nil when there is none.
    private static var python: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private static var script: URL {
        GalleryProcess.repositoryRoot.appendingPathComponent("Tests/Conformance/independent_client.py")
    }

    /// python3, or nil after recording why the test cannot run: a failure under CI=true (every CI
    /// machine has python3), a loud skip elsewhere.
    private static func requirePython() -> URL? {
        if let python { return python }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("python3 is not on the PATH: the independent client cannot run (CI=true requires it)")
        } else {
            print("IndependentClientTests: SKIPPED, python3 is not on the PATH")
        }
        return nil
    }

    @Test("The client passes its self test: RFC vectors and every golden frame of protocol.md section 16")
    func selftest() throws {
        guard let python = Self.requirePython() else { return }
        let result = try GalleryProcess.run([Self.script.path, "selftest"], executable: python, timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("PASS"), "\(result.stdout)")
    }

    @Test("The client interoperates with a real node: handshake, catch-up, push, live ops, fetches, errors")
    func againstRealNode() throws {
        guard let python = Self.requirePython() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "conform", "--listen", "127.0.0.1:0"])
        defer { #expect(node.stop() == 0, "the node did not stop cleanly: \(node.standardError)") }
        let endpoint = try #require(node.endpoint, "the node did not start: \(node.standardError)")
        #expect(endpoint.host == "127.0.0.1")

        let started = Date()
        let result = try GalleryProcess.run(
            [Self.script.path, "run", "--host", "127.0.0.1", "--port", "\(endpoint.port)",
             "--dir", directory.path, "--gallery", GalleryProcess.executable.path],
            executable: python, timeout: 120)
        #expect(result.status == 0, "independent client failed:\n\(result.stdout)\(result.stderr)\nnode log:\n\(node.standardError)")
        #expect(result.stdout.contains("run: every check passed"), "\(result.stdout)")
        print("IndependentClientTests: the client's run took \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

        // The node is still healthy after the error cases.
        let status = try GalleryProcess.run(["-C", directory.path, "status", "--json"], timeout: 20)
        #expect(status.status == 0, "\(status.stderr)")
    }
}
