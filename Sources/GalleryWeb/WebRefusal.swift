import Foundation
import GalleryHTTP
import GalleryModel
import GalleryNode

/// A request the web adapter refuses: its status, the error code of http-api.md, and one line for
/// a person. Sent as `{"error": CODE, "message": MESSAGE}` (http-api.md section 9).
struct WebRefusal: Error, LocalizedError {
    /// The status sent.
    var status: HTTPStatus
    /// The `error` code.
    var code: String
    /// The `message`.
    var message: String
    /// The field of the request body refused (`field`), if the refusal is of one.
    var field: String?

    init(_ code: Int, _ error: String, _ message: String, field: String? = nil) {
        self.status = HTTPStatus(code: code, reason: WebResponse.reason(code))
        self.code = error
        self.message = message
        self.field = field
    }

    var errorDescription: String? { message }

    /// The refusal of a use case's error: one status and code per case of `ActionError`, with the
    /// message the command line prints for it.
    init(action error: ActionError) {
        let (status, code) = Self.statusAndCode(of: error)
        self.init(status, code, error.description)
    }

    /// The refusal of a request body: 400 with the field's code and name (`WebBodyError`).
    init(body error: WebBodyError) {
        self.init(400, error.code, error.description, field: error.field?.rawValue)
    }

    /// The refusal of any error a route meets: its own, a request body's, a use case's
    /// (`ActionError`, the model's, storage faults), or else a failure of the node itself (500).
    static func from(_ error: any Error) -> WebRefusal {
        if let refusal = error as? WebRefusal { return refusal }
        if let body = error as? WebBodyError { return WebRefusal(body: body) }
        if let action = ActionError.from(error) { return WebRefusal(action: action) }
        return WebRefusal(500, "failed", error.localizedDescription)
    }

    /// The status and `error` code of each case.
    static func statusAndCode(of error: ActionError) -> (Int, String) {
        switch error {
        case .nothingNamed: (400, "badItems")
        case .badGalleryName: (400, "badName")
        case .outOfBounds: (400, "badField")
        case .ambiguousDestination: (400, "noDestination")
        case .badKeptFile: (400, "badSource")
        case .badAddress: (400, "badAddress")
        case .unsupported: (400, "unsupported")
        case .unknownGallery: (404, "unknownGallery")
        case .unknownName, .unknownItem, .itemDeleted: (404, "unknownItem")
        case .unknownTransfer: (404, "unknownTransfer")
        case .unknownPeer, .peerNotConnected: (404, "unknownPeer")
        case .blobMissing: (404, "unknownBlob")
        case .bytesMissing: (404, "notHeld")
        case .repeatedItem, .namedAlready: (409, "repeatedItem")
        case .intoItself: (409, "intoItself")
        case .emptyGallery: (409, "emptyGallery")
        case .stillLoading: (409, "stillLoading")
        case .galleryExists, .sameName: (409, "galleryExists")
        case .noBytes: (409, "noBytes")
        case .fileChanged: (409, "changedOnDisk")
        case .placeholderGone: (409, "placeholderGone")
        case .transferEnded: (409, "transferEnded")
        case .nothingToUndo: (409, "nothingToUndo")
        case .tooLarge: (413, "tooLarge")
        case .notAnImage, .unusableImage: (415, "notAnImage")
        case .noBlobs: (503, "noBlobs")
        case .storage: (503, "storage")
        case .membership(.unknownMember): (404, "unknownMember")
        case .membership(.storage): (503, "storage")
        case .membership: (409, "refused")
        case .refusedItem(_, _, let reason): statusAndCode(of: reason)
        case .model(let model): statusAndCode(of: model)
        }
    }

    /// The status and `error` code of each of the model's refusals.
    private static func statusAndCode(of error: ModelError) -> (Int, String) {
        switch error {
        case .unknownGallery: (404, "unknownGallery")
        case .unknownItem, .itemDeleted: (404, "unknownItem")
        case .indexOutOfRange: (400, "badIndex")
        case .invalidGalleryName: (400, "badName")
        case .invalidFieldValue, .outOfBounds, .emptyInsert: (400, "badField")
        case .galleryNameTaken: (409, "galleryExists")
        case .itemInTrash: (409, "inTrash")
        case .notInTrash: (409, "notInTrash")
        case .notAPlaceholder: (409, "notAPlaceholder")
        case .tooManyReplicas, .counterOverflow: (507, "full")
        case .malformedOp, .conflictingHistory, .divergentOp, .bufferFull, .sourceQuotaExceeded, .counterTooFarAhead, .forgedOp:
            (500, "failed")
        }
    }
}
