import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A connected non-blocking TCP socket on one event loop, seen as a Foundation stream pair whose
/// delegates the loop tells `hasBytesAvailable`, `hasSpaceAvailable`, `endEncountered` and
/// `errorOccurred`.
///
/// The socket owns its descriptor and closes it once (`close()` or deinit). It watches for
/// readability while reading is on (`setReading`), and for writability only after a write found
/// the socket full. Everything but `loop` and the constants is `LoopBound` to the loop's thread.
package final class NonBlockingSocket: ReadinessHandler, Sendable {
    /// The loop the socket is registered with.
    package let loop: EventLoop
    /// The peer's address.
    package let remote: String
    /// Bytes from the peer.
    var input: SocketInputStream { streams.value!.input }
    /// Bytes to the peer.
    var output: SocketOutputStream { streams.value!.output }
    /// What `input` forwards to.
    private var reader: NonBlockingSocketReader { streams.value!.reader }
    /// What `output` forwards to.
    private var writer: NonBlockingSocketWriter { streams.value!.writer }
    /// The two streams and the ends they forward to, made once in `init` (they point back here).
    private let streams: LoopBound<Streams?>
    private struct Streams {
        var input: SocketInputStream
        var output: SocketOutputStream
        var reader: NonBlockingSocketReader
        var writer: NonBlockingSocketWriter
    }
    package let descriptor: Int32
    private var reading: Bool { _read { yield boundReading.value } _modify { yield &boundReading.value } }
    private let boundReading: LoopBound<Bool>
    private var waitingForSpace: Bool { _read { yield boundWaiting.value } _modify { yield &boundWaiting.value } }
    private let boundWaiting: LoopBound<Bool>
    private var registered: Bool { _read { yield boundRegistered.value } _modify { yield &boundRegistered.value } }
    private let boundRegistered: LoopBound<Bool>
    var isClosed: Bool { _read { yield boundClosed.value } _modify { yield &boundClosed.value } }
    private let boundClosed: LoopBound<Bool>

    /// Takes ownership of a connected descriptor (made non-blocking here); call `register()` on
    /// the loop's thread before use.
    package init(descriptor: Int32, remote: String, loop: EventLoop) {
        self.descriptor = descriptor
        self.remote = remote
        self.loop = loop
        boundReading = LoopBound(true, owner: loop.owner)
        boundWaiting = LoopBound(false, owner: loop.owner)
        boundRegistered = LoopBound(false, owner: loop.owner)
        boundClosed = LoopBound(false, owner: loop.owner)
        streams = LoopBound(nil, owner: loop.owner)
        POSIX.setNonBlocking(descriptor, true)
        let reader = NonBlockingSocketReader(socket: self)
        let writer = NonBlockingSocketWriter(socket: self)
        streams.uncheckedValue = Streams(
            input: SocketInputStream(reader), output: SocketOutputStream(writer), reader: reader, writer: writer)
    }

    deinit {
        if !boundClosed.uncheckedValue { POSIX.closeDescriptor(descriptor) }
    }

    /// Starts watching the socket. Loop thread only.
    package func register() throws(TransportError) {
        try loop.register(descriptor, interest: .readable, handler: self)
        registered = true
        input.open()
        output.open()
    }

    /// Stops or resumes watching for bytes from the peer. Loop thread only.
    package func setReading(_ on: Bool) {
        guard on != reading else { return }
        reading = on
        updateInterest()
    }

    /// Asks to be told `hasSpaceAvailable` once the socket can take bytes again. Loop thread only.
    package func waitForSpace() {
        guard !waitingForSpace else { return }
        waitingForSpace = true
        updateInterest()
    }

    private func updateInterest() {
        guard registered && !isClosed else { return }
        var interest: ReadinessInterest = []
        if reading { interest.insert(.readable) }
        if waitingForSpace { interest.insert(.writable) }
        loop.setInterest(descriptor, interest)
    }

    package func ready(_ event: ReadinessEvent) {
        if event.writable || (event.hangup && waitingForSpace) {
            waitingForSpace = false
            updateInterest()
            writer.notify(.hasSpaceAvailable, from: output)
        }
        if (event.readable || event.hangup) && reading && !isClosed {
            reader.notify(.hasBytesAvailable, from: input)
        } else if event.hangup && !reading && !isClosed {
            // Hung up while reading is paused: nothing can be written any more, and the loop,
            // level-triggered, would report the hangup again on every turn.
            reader.notify(.endEncountered, from: input)
        }
    }

    package func loopClosing() {
        isClosed = true
        POSIX.closeDescriptor(descriptor)
    }

    /// Stops watching and closes the descriptor; both streams report closed. Loop thread only; idempotent.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        if registered { loop.deregister(descriptor) }
        POSIX.closeDescriptor(descriptor)
    }

    /// `recv` once: >0 bytes, 0 at end of stream, nil when nothing is there now, or an errno.
    package func receive(_ buffer: UnsafeMutablePointer<UInt8>, _ length: Int) -> Result<Int?, SocketErrno> {
        guard !isClosed else { return .success(0) }
        switch POSIX.receive(descriptor, buffer, length) {
        case .success(let count): return .success(count)
        case .failure(let failure) where failure.code == EAGAIN || failure.code == EWOULDBLOCK: return .success(nil)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// `send` once: the bytes taken (0 when the socket is full), or an errno.
    package func send(_ buffer: UnsafePointer<UInt8>, _ length: Int) -> Result<Int, SocketErrno> {
        guard !isClosed else { return .failure(SocketErrno(EBADF)) }
        while true {
            #if canImport(Darwin)
            let sent = Darwin.send(descriptor, buffer, length, POSIX.sendFlags)
            #else
            let sent = Glibc.send(descriptor, buffer, length, POSIX.sendFlags)
            #endif
            if sent >= 0 { return .success(sent) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .success(0) }
            return .failure(SocketErrno(code))
        }
    }
}
