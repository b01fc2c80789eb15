import GalleryModel
import GalleryNode
import GalleryWire
@testable import GalleryWeb
import Testing

/// The application layer's one error, `ActionError`: every case has one HTTP status and code in
/// the web adapter and one message, the line `gallery -C DIR` prints after "gallery: ".
@Suite("ActionError: one status and one message per case")
struct ActionErrorMappingTests {
    private static let id = OpID("7@00000000000000ab")!

    /// One sample of every case, its web status and code, and the command line's message.
    private static let samples: [(ActionError, Int, String, String)] = [
        (.nothingNamed(command: "move", what: "ITEM"), 400, "badItems", "move needs at least one ITEM"),
        (.badGalleryName("gallery name of 256 bytes is outside 1 to 255 bytes"), 400, "badName",
         "gallery name of 256 bytes is outside 1 to 255 bytes"),
        (.outOfBounds("title of 1025 bytes is over the limit of 1024 bytes"), 400, "badField",
         "title of 1025 bytes is over the limit of 1024 bytes"),
        (.unknownGallery("trip"), 404, "unknownGallery", "no gallery named \"trip\""),
        (.unknownName("x"), 404, "unknownItem", "\"x\" names no item (COUNTER@REPLICA or GALLERY:INDEX) and no gallery"),
        (.unknownItem(id), 404, "unknownItem", "no item 7@00000000000000ab"),
        (.itemDeleted(id), 404, "unknownItem", "item 7@00000000000000ab was deleted"),
        (.repeatedItem(id), 409, "repeatedItem", "item 7@00000000000000ab is named twice"),
        (.namedAlready("", asItem: 1), 409, "repeatedItem", "named already as item 1"),
        (.intoItself("trip"), 409, "intoItself", "cannot drop gallery \"trip\" into itself"),
        (.emptyGallery("trip"), 409, "emptyGallery", "gallery \"trip\" has no items to drag"),
        (.stillLoading(id), 409, "stillLoading", "item 7@00000000000000ab is a placeholder still loading; it cannot be dragged"),
        (.ambiguousDestination(galleries: 2), 400, "noDestination",
         "the items stand in 2 galleries: name the destination with --to; nothing was moved"),
        (.galleryExists("trip"), 409, "galleryExists", "gallery \"trip\" exists already"),
        (.sameName("trip"), 409, "galleryExists", "gallery \"trip\" has that name already"),
        (.noBlobs, 503, "noBlobs", "this node keeps no blobs"),
        (.notAnImage("a.txt"), 415, "notAnImage", "a.txt is not a PNG, JPEG or GIF image"),
        (.unusableImage("a.png", reason: "aspectRatio 0 is outside"), 415, "notAnImage", "a.png: aspectRatio 0 is outside"),
        (.tooLarge("big.png"), 413, "tooLarge", "big.png is over 4 GiB"),
        (.blobMissing("a.png", hash: "ab"), 404, "unknownBlob", "a.png: the blob ab is not stored here"),
        (.noBytes(id), 409, "noBytes", "item 7@00000000000000ab has no bytes (a URL?)"),
        (.bytesMissing("alice:0", reason: "offline"), 404, "notHeld",
         "the bytes of alice:0 are not on this node and cannot be fetched: offline"),
        (.fileChanged("/p/a.png"), 409, "changedOnDisk", "/p/a.png changed while it was being added: add it again"),
        (.badKeptFile("a.png"), 400, "badSource", "a.png: not an absolute path and a SHA-256"),
        (.placeholderGone(id), 409, "placeholderGone", "the placeholder 7@00000000000000ab was deleted meanwhile"),
        (.unknownTransfer(id), 404, "unknownTransfer", "no transfer 7@00000000000000ab on this node"),
        (.transferEnded(id, outcome: "committed"), 409, "transferEnded", "transfer 7@00000000000000ab already ended: committed"),
        (.badAddress("x"), 400, "badAddress", "\"x\" is not HOST:PORT"),
        (.peerNotConnected("bob"), 404, "unknownPeer", "no peer named \"bob\" is connected"),
        (.unknownPeer("bob"), 404, "unknownPeer", "the address book holds no peer or address \"bob\""),
        (.nothingToUndo(redo: true), 409, "nothingToUndo", "nothing to redo"),
        (.unsupported("watch"), 400, "unsupported", "watch is not taken here"),
        (.refusedItem("item 2 of 3 (alice:9)", verb: "moved", because: .model(.indexOutOfRange(index: 9, count: 3))), 400, "badIndex",
         "item 2 of 3 (alice:9): index 9 out of range (count 3); nothing was moved"),
        (.model(.itemInTrash(id)), 409, "inTrash", "item 7@00000000000000ab is in the Trash (restore it first)"),
        (.storage(.storageUnavailable("disk full")), 503, "storage",
         "disk full; changes are refused until storing works again (the node retries, and serves reads meanwhile)"),
        (.membership(.unknownMember("bob")), 404, "unknownMember", "no member bob (a node ID or name from `gallery members`)"),
        (.membership(.revokingItself), 409, "refused", "a node cannot revoke itself"),
        (.membership(.storage("disk full")), 503, "storage", "cannot store the change: disk full"),
    ]

    /// The position of a case in `ActionError`'s declaration. No `default:`: a new case does not
    /// compile until it is here, and `everyCase` then fails until `samples` has it.
    private static func ordinal(_ error: ActionError) -> Int {
        switch error {
        case .nothingNamed: 0
        case .badGalleryName: 1
        case .outOfBounds: 2
        case .unknownGallery: 3
        case .unknownName: 4
        case .unknownItem: 5
        case .itemDeleted: 6
        case .repeatedItem: 7
        case .namedAlready: 8
        case .intoItself: 9
        case .emptyGallery: 10
        case .stillLoading: 11
        case .ambiguousDestination: 12
        case .galleryExists: 13
        case .sameName: 14
        case .noBlobs: 15
        case .notAnImage: 16
        case .unusableImage: 17
        case .tooLarge: 18
        case .blobMissing: 19
        case .noBytes: 20
        case .bytesMissing: 21
        case .fileChanged: 22
        case .badKeptFile: 23
        case .placeholderGone: 24
        case .unknownTransfer: 25
        case .transferEnded: 26
        case .badAddress: 27
        case .peerNotConnected: 28
        case .unknownPeer: 29
        case .nothingToUndo: 30
        case .unsupported: 31
        case .refusedItem: 32
        case .model: 33
        case .storage: 34
        case .membership: 35
        }
    }

    @Test("the samples cover every case of ActionError")
    func everyCase() {
        #expect(Set(Self.samples.map { Self.ordinal($0.0) }) == Set(0...35))
    }

    @Test("each case: one status and code on the web, one message on the command line (the web's message too)")
    func statusAndMessage() {
        for (error, status, code, message) in Self.samples {
            let refusal = WebRefusal(action: error)
            #expect(refusal.status.code == status && refusal.code == code, "\(error): \(refusal.status.code) \(refusal.code)")
            #expect(error.description == message && error.localizedDescription == message, "\(error.description)")
            #expect(refusal.message == message)
        }
    }

    @Test("errors of the model and of storage map through ActionError; any other error is the node's own failure, 500")
    func otherErrors() {
        #expect(WebRefusal.from(ModelError.unknownGallery("x")).code == "unknownGallery")
        #expect(WebRefusal.from(ModelError.galleryNameTaken("x")).status.code == 409)
        #expect(WebRefusal.from(SyncNodeError.notDurable("disk")).status.code == 503)
        struct Unexpected: Error {}
        let refusal = WebRefusal.from(Unexpected())
        #expect(refusal.status.code == 500 && refusal.code == "failed")
        #expect(ActionError.from(Unexpected()) == nil)
    }

    @Test("one rule for gallery names: 255 bytes of UTF-8 pass, 256 and control characters do not, for a new name and a rename")
    func galleryNameRule() {
        let longest = String(repeating: "é", count: 127) + "a"
        #expect(longest.utf8.count == 255)
        #expect(ControlCommand.newGallery(longest).galleryNameProblem == nil)
        #expect(ControlCommand.newGallery(longest + "b").galleryNameProblem != nil)
        #expect(ControlCommand.newGallery("a\nb").galleryNameProblem != nil)
        #expect(ControlCommand.renameGallery("a", to: longest).galleryNameProblem == nil)
        #expect(ControlCommand.renameGallery("a", to: longest + "b").galleryNameProblem != nil)
        #expect(ControlCommand.newGallery("").boundsProblem != nil)
    }
}
