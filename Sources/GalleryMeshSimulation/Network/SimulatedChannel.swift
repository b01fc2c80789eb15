import GalleryIO
import GalleryNode

/// One end of a simulated link, as a node's connection sees it: a `Channel` whose channel thread
/// is its lane of the scheduler. Writes pull the connection's outbox and go onto the link; the
/// link delivers them to the other end's pipeline after latency and transmission time.
/// Its state is `LoopBound` to the simulation's thread (`SimulationScheduler.owner`).
final class SimulatedChannel: TransportChannel, TransportLink, Sendable {
    var pipeline: ChannelPipeline { boundPipeline.value }
    private let boundPipeline: LoopBound<ChannelPipeline>
    /// The other end's address.
    let remote: String
    /// This end's lane (its channel thread).
    let lane: Int
    /// Which end of `link` this is (0: the dialer).
    let side: Int
    unowned let link: SimulatedLink
    /// The connection's outbox, once the node made its pipeline.
    private var source: (any OutboundByteSource)? { _read { yield boundSource.value } _modify { yield &boundSource.value } }
    private let boundSource: LoopBound<(any OutboundByteSource)?>
    /// Whether `activate` ran (nothing is written before).
    private var active: Bool { _read { yield boundActive.value } _modify { yield &boundActive.value } }
    private let boundActive: LoopBound<Bool>
    var isClosed: Bool { _read { yield boundIsClosed.value } _modify { yield &boundIsClosed.value } }
    private let boundIsClosed: LoopBound<Bool>

    /// One end of `link`, on `lane`.
    init(link: SimulatedLink, side: Int, remote: String, lane: Int) {
        self.link = link
        self.side = side
        self.remote = remote
        self.lane = lane
        boundPipeline = LoopBound(ChannelPipeline(), owner: link.network.scheduler.owner)
        boundSource = LoopBound(nil, owner: link.network.scheduler.owner)
        boundActive = LoopBound(false, owner: link.network.scheduler.owner)
        boundIsClosed = LoopBound(false, owner: link.network.scheduler.owner)
    }

    /// Installs the connection's pipeline and outbox (the end is its own link for the node).
    func makeChannel(source: any OutboundByteSource, handlers: [any ChannelHandler]) -> any TransportChannel {
        self.source = source
        for handler in handlers { pipeline.addLast(handler) }
        pipeline.channel = self
        return self
    }

    func refuse() {
        link.reset(reason: "connection refused")
    }

    func activate() {
        execute { [self] in
            guard !isClosed else { return }
            active = true
            pipeline.fireChannelActive()
            flush()
        }
    }

    func execute(_ task: @escaping @Sendable () -> Void) {
        link.network.scheduler.schedule(at: link.network.scheduler.now, lane: lane, task)
    }

    func writeOutbound(_ data: Any) {
        guard let bytes = data as? [UInt8], !isClosed else { return }
        link.transmit(bytes, from: side)
    }

    func flush() {
        guard active, let source else { return }
        while !isClosed {
            switch source.pull(waiting: false) {
            case .bytes(let bytes):
                source.wrote(bytes.count)
                link.transmit(bytes, from: side)
            case .idle:
                return
            case .finished:
                close()
                return
            }
        }
    }

    func setReading(_ on: Bool) {}

    func close() {
        close(reason: "closed", tellPeer: true)
    }

    /// Closes this end once: the pipeline sees why; the other end gets the close after the bytes
    /// in flight (a FIN), when `tellPeer`.
    func close(reason: String, tellPeer: Bool) {
        guard !isClosed else { return }
        isClosed = true
        source?.closeSource()
        if tellPeer { link.finish(from: side) }
        pipeline.fireChannelInactive(reason: reason)
    }

    /// Bytes from the other end.
    func deliver(_ bytes: [UInt8]) {
        guard !isClosed, active else { return }
        pipeline.fireChannelRead(bytes)
    }
}
