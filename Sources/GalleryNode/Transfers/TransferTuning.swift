/// The sizes that shape a transfer's flow: chosen by measurement (`gallery-bench transfer
/// --sweep`, BENCHMARKS.md "Transfer"), changed only by that bench.
package struct TransferTuning: Sendable, Equatable {
    /// The largest `chunk` frame's data: the grain at which ops overtake bytes (an op waits
    /// behind at most the chunk being written).
    package var chunkLength = 64 << 10
    /// The chunks one `fetch` asks for: the bytes in flight per download, and so the most an op
    /// sent meanwhile waits behind.
    package var chunksPerFetch = 4
    /// The most bytes received but not yet hashed and stored per download: past it, the next
    /// fetch waits for the stage (backpressure from the disk and the hash to the peer).
    package var backlogBytes = 4 << 20

    package init() {}

    package init(chunkLength: Int, chunksPerFetch: Int, backlogBytes: Int) {
        self.chunkLength = chunkLength
        self.chunksPerFetch = chunksPerFetch
        self.backlogBytes = backlogBytes
    }
}
