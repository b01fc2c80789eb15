import Foundation

/// A command from a client to a running node, as one `control_request` frame carries it:
/// `{"id": N, "sent"?: T, "command": NAME, "arguments"?: {...}}` (protocol.md section 15).
package struct ControlRequest: Codable, Hashable, Sendable {
    /// Chosen by the client; echoed in the response.
    package var id: Int
    /// What to do.
    package var command: ControlCommand
    /// When the client sent the request (seconds since 1970): a request that waited in the socket
    /// longer than the client waits for an answer (the node was paused) is refused, not carried out.
    package var sent: Double?

    package init(id: Int, command: ControlCommand, sent: Double? = nil) {
        self.id = id
        self.command = command
        self.sent = sent
    }

    private enum Key: String, CodingKey {
        case id, sent, command, arguments
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(Int.self, forKey: .id)
        sent = try container.decodeIfPresent(Double.self, forKey: .sent)
        command = try ControlCommand(from: container)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(sent, forKey: .sent)
        try command.encode(into: &container)
    }

    /// The request ID of a request that does not decode, so that the refusal names it (0 when even
    /// the ID is unreadable).
    package static func identifier(ofMalformed json: [UInt8]) -> Int {
        struct IDOnly: Decodable { var id: Int }
        return (try? JSONDecoder().decode(IDOnly.self, from: Data(json)))?.id ?? 0
    }

    /// A one-line reason why a request did not decode, for the refusal.
    package static func problem(with error: any Error) -> String {
        guard let error = error as? Swift.DecodingError else { return "malformed control request" }
        let reason: String
        switch error {
        case .dataCorrupted(let context):
            reason = context.codingPath.isEmpty ? "not JSON" : context.debugDescription
        case .keyNotFound(let key, let context):
            reason = "no \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            reason = "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default:
            reason = "undecodable"
        }
        return "malformed control request: \(reason)"
    }
}
