import Foundation
@testable import GalleryHost
import GalleryIO
@testable import GalleryNode
import GalleryTestSupport
import Synchronization
import Testing

extension NodeSuites {
    /// A revoked node that redials at once (issue 26 item 5, protocol.md "Membership"): it is
    /// refused as soon as it authenticates, and `peers` (hence `status` and the page) never lists it,
    /// not even while its refused connection or its closed session is still held.
    @Suite("A revoked node redialing")
    struct RevokeRedialTests {
        /// `peers` as it stood at the moments a revoked node's connection was held by the node:
        /// when the node refused it (authenticated, not yet closed), and when the revoked node
        /// heard of its revocation (its session closed, its connection maybe not yet released).
        final class Moments: Sendable {
            private let node = Mutex<SyncNode?>(nil)
            private let seen = Mutex<[Moment]>([])

            /// `peers` at one moment, and the names of the authenticated connections the node held then.
            struct Moment: Sendable {
                var line: String
                var peers: [PeerStatus]
                var held: [String]
            }

            /// The node whose `peers` is read.
            func watch(_ watched: SyncNode) { node.withLock { $0 = watched } }

            /// A log that reads `peers` when a line containing `marker` is written.
            func log(at marker: String) -> NodeLog {
                NodeLog { [self] line in
                    guard line.contains(marker), let watched = node.withLock({ $0 }) else { return }
                    let (peers, held) = watched.loop.sync {
                        (watched.peerStatuses(), watched.connections.values.compactMap { $0.peer?.name })
                    }
                    seen.withLock { $0.append(Moment(line: line, peers: peers, held: held)) }
                }
            }

            /// Records `peers` as seen at a change of the node's state.
            func record(_ peers: [PeerStatus]) {
                seen.withLock { $0.append(Moment(line: "", peers: peers, held: [])) }
            }

            /// The moments seen so far.
            var all: [Moment] { seen.withLock { $0 } }
        }

        @Test("Revoked, carol redials at once: refused each time, and never listed among alice's peers")
        func redialIsNeverListed() throws {
            try StorageFixtures.withScratchDirectory(Self.revokeAndRedial(in:))
        }

        /// Alice invites carol, revokes her once she is live, and watches her peers while carol redials.
        private static func revokeAndRedial(in scratch: URL) throws {
            let refusals = Moments(), heard = Moments()
            let loopback = Endpoint(host: "127.0.0.1", port: 0)
            let alice = try GalleryServer(directory: scratch.appendingPathComponent("alice"), name: "alice", listen: loopback,
                                          log: refusals.log(at: "REVOKED node"))
            refusals.watch(alice.node)
            heard.watch(alice.node)
            try alice.start()
            defer { alice.stop() }
            let code = try alice.node.invite(seconds: 600)
            let carol = try GalleryServer(directory: scratch.appendingPathComponent("carol"), name: "carol", listen: loopback,
                                          log: heard.log(at: "was revoked from this space"), join: code)
            try carol.start()
            defer { carol.stop() }
            #expect(alice.node.waitForPeers(timeout: .seconds(60)) { $0.contains { $0.name == "carol" && $0.state == .live } })

            _ = try alice.node.revoke("carol")
            #expect(!alice.node.peers.contains { $0.name == "carol" }, "listed right after the revocation")
            // Carol keeps redialing; alice checks her peers at every change of her state until
            // she has refused carol twice and released both refused connections.
            let changes = Moments()
            let refusedTwice = alice.node.waitForPeers(timeout: .seconds(60)) { peers in
                changes.record(peers)
                return refusals.all.count >= 2
            }
            #expect(refusedTwice, "alice refused carol \(refusals.all.count) times")
            #expect(!heard.all.isEmpty, "carol never heard of her revocation")
            let moments = refusals.all.map(\.peers) + heard.all.map(\.peers) + changes.all.map(\.peers)
            let listed = moments.filter { $0.contains { $0.name == "carol" || $0.state == .syncing || $0.state == .live } }
            #expect(listed.isEmpty, "carol listed: \(listed)")
            // Not a listing that shows nothing: at each refusal alice held carol's authenticated
            // connection (the moment a `peers` once listed it).
            #expect(refusals.all.allSatisfy { $0.held.contains("carol") }, "\(refusals.all.map(\.held))")
        }
    }
}
