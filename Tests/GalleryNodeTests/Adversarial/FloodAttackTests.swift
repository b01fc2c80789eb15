import Foundation
import GalleryIO
import GallerySimulation
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A flood of 200 connections and a slow loris do not stop A from serving B")
    func survivesFloodAndSlowLoris() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let a = node.a, b = node.b, endpoint = node.endpoint, aID = node.aID, cluster = node.cluster
        // 9. A flood of 200 connections that each send a few bytes and close, while B and A keep
        //    exchanging ops; a slow-loris connection (a partial header, then silence) meanwhile is
        //    closed with `timeout` once the handshake deadline (3 s here) passes.
        let baselineDescriptors = Self.openDescriptors()
        let baselineThreads = Self.threadCount()
        let floodBefore = a.read { $0.version }
        let loris = try AdversaryClient(endpoint, deadline: .seconds(10))
        loris.send([0x39, 0x00, 0x00])
        let lorisStart = ContinuousClock.now
        let lorisResult = AdversaryShared<Conversation?>(nil)
        let traffic = DispatchGroup()
        // The loris is read on its own thread, so that its closing time is measured.
        DispatchQueue.global().async(group: traffic) {
            lorisResult.set(Self.finish(loris, label: "slow loris", started: lorisStart))
        }
        let flood = AdversaryFlood()
        let served = AdversaryShared<[Bool]>([])
        DispatchQueue.global().async(group: traffic) {
            for index in 0..<5 {
                let op = try? b.perform { try $0.insert([.titled("during flood \(index)")], into: "g", at: 0) }
                let arrived = op.map { op in a.wait(timeout: .seconds(5)) { $0.contains(op.id) } } ?? false
                served.update { $0.append(arrived) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        let floodStart = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var random = SeededGenerator(seed: 0xF100D + UInt64(worker))
            for _ in 0..<50 {
                guard let streams = try? Connector.connect(to: endpoint, timeout: .seconds(2)) else {
                    flood.failed()
                    continue
                }
                let bytes = (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                let written = bytes.withUnsafeBufferPointer { streams.output.write($0.baseAddress!, maxLength: $0.count) }
                streams.close()
                flood.opened(wrote: written == bytes.count)
            }
        }
        let floodTime = ContinuousClock.now - floodStart
        #expect(traffic.wait(timeout: .now() + 30) == .success)
        #expect(flood.counts.opened == 200, "flood: \(flood.counts)")
        #expect(served.value == Array(repeating: true, count: 5), "B's ops did not all reach A during the flood")
        // Every flood connection is gone from A; descriptors and threads come back.
        let drained = Self.waitUntil(.seconds(10)) { a.peers.count == 1 }
        #expect(drained, "A still lists \(a.peers.count) connections after the flood")
        // Descriptors and threads are counted for the whole process, which other suites share
        // while they run in parallel: reported, not asserted.
        print("flood: descriptors \(baselineDescriptors) -> \(Self.openDescriptors()), threads \(baselineThreads) -> \(Self.threadCount())")
        // Only B's ops were added during the flood.
        #expect(cluster.waitForConvergence(timeout: .seconds(10)))
        #expect(a.read { $0.version } == floodBefore.merged(with: b.read { $0.version }))
        #expect(Set(a.read { $0.version }.counters.keys) == [aID, b.read { $0.id }])
        node.survived += 200
        node.expectServing("after the flood")
        let lorisTalk = try #require(lorisResult.value)
        // Closed with `timeout` once the handshake deadline (3 s) passed, not before.
        #expect(lorisTalk.end.isClosedByPeer && Self.errorCode(lorisTalk.frames.last) == .timeout, "slow loris: \(Self.describe(lorisTalk.frames))")
        #expect(lorisTalk.frames.allSatisfy { $0.knownType == .error })
        #expect(lorisTalk.elapsed >= .seconds(2.9) && lorisTalk.elapsed < .seconds(6), "slow loris closed after \(lorisTalk.elapsed)")
        node.survived += 1
        node.timings.append("flood of 200: \(floodTime); slow loris closed after \(lorisTalk.elapsed)")
        node.expectOnlyGoodPeer("survivesFloodAndSlowLoris")
    }
}
