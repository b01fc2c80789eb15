/// The growing output of an inflate: raw memory rather than an `Array`, so that the hot loop writes
/// without bounds or uniqueness checks. It never grows past `limit`. It owns its memory, or borrows
/// a caller's fixed buffer (then `limit` is its size and it never grows).
struct OutputBuffer {
    private let owned: Bool
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Bytes written.
    var count = 0
    /// The most this buffer may hold.
    let limit: Int

    init(initialCapacity: Int, limit: Int) {
        capacity = max(initialCapacity, 1)
        base = .allocate(capacity: capacity)
        self.limit = limit
        owned = true
    }

    /// Writes into `buffer` and never past it.
    init(borrowing buffer: UnsafeMutableBufferPointer<UInt8>) {
        // A zero-size buffer may have no base address; nothing can be written to it anyway.
        base = buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        capacity = buffer.count
        limit = buffer.count
        owned = false
    }

    /// The first unwritten byte.
    var end: UnsafeMutablePointer<UInt8> { base + count }

    /// Makes room for `extra` more bytes, doubling up to `limit`.
    /// - Throws: `.tooLarge` when that would pass `limit`.
    mutating func reserve(_ extra: Int) throws(ImageError) {
        guard extra <= limit - count else {
            throw .tooLarge("inflated data passes its bound of \(limit) bytes")
        }
        guard count + extra > capacity else { return }
        let grown = min(max(capacity * 2, count + extra), limit)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    /// A copy of the bytes written.
    func array() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }

    /// Frees the memory when owned; the buffer must not be used afterwards.
    func deallocate() {
        if owned { base.deallocate() }
    }
}
