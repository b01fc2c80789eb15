import Foundation
@testable import GalleryIO
import GalleryModel
@testable import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// What a node lets in before authentication, and how it logs floods.
    @Suite("Admission")
    struct AdmissionTests {
        @Test("The throttled log writes one line per kind and interval, then the count of what it held back")
        func throttledLog() {
            let lines = Mutex<[String]>([])
            let log = ThrottledLog(NodeLog { line in lines.withLock { $0.append(line) } }, interval: .seconds(1))
            let start: UInt64 = 1_000_000_000_000
            for index in 0..<1_000 { log("accept", "accept failed \(index)", now: start + UInt64(index) * 100_000) }
            log("refused", "refused 0", now: start + 1)
            #expect(lines.withLock { $0 } == ["accept failed 0", "refused 0"])
            log.flush(now: start + 500_000_000)
            #expect(lines.withLock { $0.count } == 2, "a summary before the interval is over")
            log.flush(now: start + 1_000_000_000)
            #expect(lines.withLock { $0 } == [
                "accept failed 0", "refused 0", "accept failed 1 (999 lines like this in the last 1 s, this one shown)",
            ])
            // A kind that went quiet writes its next line at once.
            log("accept", "accept failed again", now: start + 2_500_000_000)
            #expect(lines.withLock { $0.last } == "accept failed again")
        }

        @Test("The address part of a remote is what the per-address cap counts")
        func hostOfRemote() {
            #expect(AdmissionController.host(of: "127.0.0.1:5000") == "127.0.0.1")
            #expect(AdmissionController.host(of: "[::1]:5000") == "::1")
            #expect(AdmissionController.host(of: "[fe80::1%lo]:1") == "fe80::1%lo")
        }

        @Test("Address groups: IPv4 by address, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, zones dropped")
        func addressGroups() {
            #expect(AdmissionController.addressGroup(ofHost: "127.0.0.1") == "127.0.0.1")
            #expect(AdmissionController.addressGroup(ofHost: "::ffff:10.1.2.3") == "10.1.2.3")
            let oneHost = ["2001:db8:0:7::1", "2001:db8:0:7:ffff::9", "2001:0db8:0000:0007:1:2:3:4"]
            #expect(Set(oneHost.map(AdmissionController.addressGroup(ofHost:))) == ["2001:db8:0:7::/64"])
            #expect(AdmissionController.addressGroup(ofHost: "2001:db8:0:8::1") == "2001:db8:0:8::/64")
            #expect(AdmissionController.addressGroup(ofHost: "fe80::1%lo") == "fe80:0:0:0::/64")
        }

        @Test("Unauthenticated connections over the caps are closed at accept; authenticated peers are not counted")
        func capsAndAuthenticatedPeers() throws {
            var configuration = NodeConfiguration(name: "capped", secret: TestCluster.secret, log: .silent)
            configuration.admission = AdmissionLimits(maximumUnauthenticated: 4, maximumUnauthenticatedPerAddress: 3)
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "capped")))
            let endpoint = try #require(try node.start())
            defer { node.stop() }
            // Three held from 127.0.0.1: the fourth from that address is closed at once.
            let held = try (0..<3).map { _ in try Connector.connect(to: endpoint) }
            #expect(node.waitForPeers(timeout: .seconds(5)) { $0.count == 3 })
            let refused = try Connector.connect(to: endpoint)
            var byte: UInt8 = 0
            #expect(refused.input.read(&byte, maxLength: 1) == 0, "the connection over the per-address cap was kept")
            // Once they are gone, a peer gets in; authenticated, it does not count against the caps:
            // three more unauthenticated connections from its address are held beside it.
            for streams in held { streams.close() }
            #expect(node.waitForPeers(timeout: .seconds(5)) { $0.isEmpty })
            let peer = SyncNode(
                configuration: NodeConfiguration(name: "peer", secret: TestCluster.secret, listen: nil, log: .silent),
                replica: Replica(id: ReplicaID(deriving: "peer")))
            try peer.start()
            defer { peer.stop() }
            try peer.connect(to: endpoint)
            #expect(node.waitForPeers(timeout: .seconds(5)) { $0.count == 1 && $0.first?.state == .live })
            let more = try (0..<3).map { _ in try Connector.connect(to: endpoint) }
            #expect(node.waitForPeers(timeout: .seconds(5)) { $0.count == 4 })
            // Tracked by the accept loop right after the node lists it.
            let deadline = ContinuousClock.now + .seconds(5)
            while node.admission.unauthenticatedCount != 3 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(node.admission.unauthenticatedCount == 3)
            for streams in more { streams.close() }
            refused.close()
        }
    }
}
