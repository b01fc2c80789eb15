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

    init(_ code: Int, _ error: String, _ message: String) {
        self.status = HTTPStatus(code: code, reason: WebResponse.reason(code))
        self.code = error
        self.message = message
    }

    var errorDescription: String? { message }

    /// The refusal for an error of a use case or of the model: its status and code from what it
    /// is (the model's errors) or says (the one-line `ActionFailure`s the command line shows too).
    static func from(_ error: any Error) -> WebRefusal {
        if let refusal = error as? WebRefusal { return refusal }
        let message = error.localizedDescription
        if let model = error as? ModelError {
            switch model {
            case .unknownGallery: return WebRefusal(404, "unknownGallery", message)
            case .unknownItem, .itemDeleted: return WebRefusal(404, "unknownItem", message)
            case .indexOutOfRange: return WebRefusal(400, "badIndex", message)
            case .invalidGalleryName: return WebRefusal(400, "badName", message)
            case .invalidFieldValue, .outOfBounds: return WebRefusal(400, "badField", message)
            case .galleryNameTaken: return WebRefusal(409, "galleryExists", message)
            case .itemInTrash: return WebRefusal(409, "inTrash", message)
            case .notInTrash: return WebRefusal(409, "notInTrash", message)
            default: return WebRefusal(409, "refused", message)
            }
        }
        if error is SyncNodeError { return WebRefusal(503, "storage", message) }
        let rules: [(String, Int, String)] = [
            ("exists already", 409, "galleryExists"), ("named twice", 409, "repeatedItem"),
            ("dragged twice", 409, "repeatedItem"), ("into itself", 409, "intoItself"),
            ("still loading", 409, "stillLoading"), ("no transfer", 404, "unknownTransfer"),
            ("already ended", 404, "unknownTransfer"), ("no gallery named", 404, "unknownGallery"),
            ("was deleted", 404, "unknownItem"), ("no item", 404, "unknownItem"),
            ("not a PNG, JPEG or GIF", 415, "notAnImage"),
        ]
        for (phrase, status, code) in rules where message.contains(phrase) { return WebRefusal(status, code, message) }
        return WebRefusal(400, "refused", message)
    }
}
