import Foundation
import GalleryModel

/// The node's answer to one request, as one `control_response` frame carries it:
/// `{"id": N, "ok": true, PAYLOAD}` (`ControlReply`) or `{"id": N, "ok": false, "error": "one line"}`.
package struct ControlResponse: Codable, Hashable, Sendable {
    /// The request's ID.
    package var id: Int
    /// The reply, or the one-line reason the command was refused (it changed nothing).
    package var result: Result<ControlReply, ControlRefusal>

    package init(id: Int, result: Result<ControlReply, ControlRefusal>) {
        self.id = id
        self.result = result
    }

    /// A successful answer.
    package init(id: Int, _ reply: ControlReply) {
        self.init(id: id, result: .success(reply))
    }

    /// A refusal with its reason.
    package init(id: Int, refused reason: String) {
        self.init(id: id, result: .failure(ControlRefusal(reason)))
    }

    /// Whether the command succeeded.
    package var ok: Bool {
        if case .success = result { true } else { false }
    }

    /// The reply of a successful command, else nil.
    package var reply: ControlReply? {
        try? result.get()
    }

    /// The reason of a refusal, else nil.
    package var error: String? {
        if case .failure(let refusal) = result { refusal.reason } else { nil }
    }

    private enum Key: String, CodingKey {
        case id, ok, error, galleries, ids, peers, status, drops, item, events, message, members
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(Int.self, forKey: .id)
        guard try container.decode(Bool.self, forKey: .ok) else {
            result = .failure(ControlRefusal(try container.decodeIfPresent(String.self, forKey: .error) ?? "refused"))
            return
        }
        let reply: ControlReply
        if let events = try container.decodeIfPresent([WatchEvent].self, forKey: .events) {
            reply = .changes(events)
        } else if let galleries = try container.decodeIfPresent([GalleryListing].self, forKey: .galleries) {
            reply = .galleries(galleries)
        } else if let drops = try container.decodeIfPresent([DropListing].self, forKey: .drops) {
            reply = .drops(drops)
        } else if let item = try container.decodeIfPresent(ItemListing.self, forKey: .item) {
            reply = .item(item)
        } else if let status = try container.decodeIfPresent(NodeStatus.self, forKey: .status) {
            reply = .status(status)
        } else if let peers = try container.decodeIfPresent([PeerListing].self, forKey: .peers) {
            reply = .peers(peers)
        } else if let texts = try container.decodeIfPresent([String].self, forKey: .ids) {
            reply = .added(try texts.map { text in
                guard let id = OpID(text) else {
                    throw Swift.DecodingError.dataCorruptedError(forKey: .ids, in: container, debugDescription: "\"\(text)\" is not an item ID")
                }
                return id
            })
        } else if let members = try container.decodeIfPresent([MemberListing].self, forKey: .members) {
            reply = .members(members)
        } else if let message = try container.decodeIfPresent(String.self, forKey: .message) {
            reply = .message(message)
        } else {
            reply = .done
        }
        result = .success(reply)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        try container.encode(ok, forKey: .ok)
        switch result {
        case .failure(let refusal):
            try container.encode(refusal.reason, forKey: .error)
        case .success(.done):
            break
        case .success(.galleries(let galleries)):
            try container.encode(galleries, forKey: .galleries)
        case .success(.added(let ids)):
            try container.encode(ids.map(\.description), forKey: .ids)
        case .success(.peers(let peers)):
            try container.encode(peers, forKey: .peers)
        case .success(.status(let status)):
            try container.encode(status, forKey: .status)
        case .success(.drops(let drops)):
            try container.encode(drops, forKey: .drops)
        case .success(.item(let item)):
            try container.encode(item, forKey: .item)
        case .success(.changes(let events)):
            try container.encode(events, forKey: .events)
        case .success(.message(let message)):
            try container.encode(message, forKey: .message)
        case .success(.members(let members)):
            try container.encode(members, forKey: .members)
        }
    }
}
