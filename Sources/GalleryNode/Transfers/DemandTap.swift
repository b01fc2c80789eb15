/// A reader of bytes on demand that takes them as they are stored, before the whole blob is
/// verified (a page's `GET /blobs/HASH` streaming a picture while it arrives from a peer).
///
/// The bytes a tap sees are unverified: it must not complete its own answer before the reader's
/// `DemandAnswer` says the blob was stored (its hash checked), and must abort it on `discarded` or
/// on a failure.
package protocol DemandTap: AnyObject, Sendable {
    /// The next bytes stored, from `offset` of the blob, in order, on the download's stage thread.
    /// Returns false when the tap takes no more (it missed bytes, or fell too far behind): it then
    /// waits for the answer and reads the stored blob.
    func received(_ bytes: [UInt8], at offset: Int) -> Bool
    /// The bytes given so far did not hash to the blob's hash and are discarded (the download
    /// starts over with another holder): whatever the tap passed on must be aborted.
    func discarded()
}
