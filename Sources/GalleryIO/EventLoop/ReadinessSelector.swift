/// Which readiness of a descriptor an event loop waits for.
package struct ReadinessInterest: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Bytes can be read, the peer closed, or a connection waits to be accepted.
    package static let readable = ReadinessInterest(rawValue: 1)
    /// Bytes can be written (or a non-blocking connect finished).
    package static let writable = ReadinessInterest(rawValue: 2)
}

/// One descriptor found ready by `ReadinessSelector.wait`.
package struct ReadinessEvent: Sendable {
    /// The ready descriptor.
    package var descriptor: Int32
    /// Readable, or at end of stream.
    package var readable: Bool
    /// Writable.
    package var writable: Bool
    /// The peer hung up or the socket has an error: reading tells which.
    package var hangup: Bool
}

/// The operations every platform's readiness selector offers (epoll on Linux, kqueue on Darwin).
///
/// A selector is used by its event loop's thread only, except `wakeUp()`, which any thread may
/// call to end a `wait` early (and `close()`, once).
package protocol ReadinessSelecting: AnyObject, Sendable {
    /// Starts watching `descriptor` for `interest` (level-triggered).
    func register(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError)
    /// Changes what `descriptor` is watched for.
    func modify(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError)
    /// Stops watching `descriptor` (call before closing it).
    func deregister(_ descriptor: Int32)
    /// Waits until a descriptor is ready, `wakeUp()` is called, or `timeoutMilliseconds` pass
    /// (-1: no limit); returns the ready descriptors (the wake-up itself is not reported).
    func wait(timeoutMilliseconds: Int32) -> [ReadinessEvent]
    /// Ends the current or next `wait` early; callable from any thread.
    func wakeUp()
    /// Releases the selector's descriptors.
    func close()
}
