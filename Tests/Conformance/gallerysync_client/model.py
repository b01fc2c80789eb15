"""Replica models the client replays ops on, and an author of this client's own ops.

Model follows a history without concurrent edits and checks every op's anchors against it;
LooseModel (for explore) only tracks the vector and the ops held; Author picks counters and gaps."""

from .checking import check
from .ops import (F_ASPECT, F_BYTES, F_HASH, F_MEDIA, F_ORIGIN, F_TITLE, F_TRASHED, F_URL, K_COMMIT, K_CREATE,
    K_DELETE, K_DELETE_GALLERY, K_INSERT, K_MOVE, K_RENAME_GALLERY, K_UPDATE, op_id_text, op_size)


# A sequential replica model: enough to follow a history without concurrent edits (every op made
# after its author had seen all earlier ones), which is what a single node's log and this client's
# pushes are. It checks that each insert's and move's anchors are adjacent slots.

class Model:
    def __init__(self):
        self.galleries = {}      # name -> list of slot IDs, tombstones included
        self.slot_item = {}
        self.item_slot = {}      # item -> (slot, op ID that set it)
        self.items = {}          # item -> {"fields": {}, "placeholder": bool, "deleted": bool}
        self.vv = {}
        self.applied = []
        # Section 7: a gallery's shown name and whether it is deleted, each won by the greatest op ID.
        self.titles = {}         # gallery -> (op ID, name)
        self.deleted_galleries = {}   # gallery -> (op ID, deleted)

    def max_counter(self):
        return max(self.vv.values(), default=0)

    def _place(self, gallery, after, before, slots, context):
        check(gallery in self.galleries, f"{context}: gallery {gallery!r} not created")
        order = self.galleries[gallery]
        if after is None:
            index = 0
        else:
            check(after in order, f"{context}: anchor after={after} is not a slot of {gallery!r}")
            index = order.index(after) + 1
        following = order[index] if index < len(order) else None
        check(following == before, f"{context}: anchors after={after} before={before} are not adjacent in {gallery!r} "
              f"(the slot after {after} is {following})")
        order[index:index] = slots

    def apply(self, op):
        op_id = (op["counter"], op["replica"])
        context = f"op {op_id_text(*op_id)} kind {op['kind']}"
        previous = op["counter"] - op["gap"]
        # The node's reading of "previous op = counter - gap" (found by experiment, protocol.md is
        # ambiguous): the last counter the replica used, i.e. the last item of a previous insert run.
        held = self.vv.get(op["replica"], 0)
        check(previous == held, f"{context}: gap {op['gap']} names counter {previous}, the replica's last counter here is {held}")
        kind = op["kind"]
        if kind == K_CREATE:
            self.galleries.setdefault(op["name"], [])
        elif kind == K_INSERT:
            ids = [(op["counter"] + k, op["replica"]) for k in range(len(op["drafts"]))]
            self._place(op["gallery"], op["after"], op["before"], ids, context)
            for item, draft in zip(ids, op["drafts"]):
                self.slot_item[item] = item
                self.item_slot[item] = (item, item)
                self.items[item] = {"fields": dict(draft["fields"]), "placeholder": draft["placeholder"], "deleted": False}
        elif kind == K_MOVE:
            check(op["item"] in self.items, f"{context}: moves unknown item {op['item']}")
            self._place(op["gallery"], op["after"], op["before"], [op_id], context)
            self.slot_item[op_id] = op["item"]
            if op_id > self.item_slot[op["item"]][1]:
                self.item_slot[op["item"]] = (op_id, op_id)
        elif kind == K_DELETE:
            check(op["item"] in self.items, f"{context}: deletes unknown item {op['item']}")
            self.items[op["item"]]["deleted"] = True
        elif kind == K_UPDATE:
            check(op["item"] in self.items, f"{context}: updates unknown item {op['item']}")
            fields = self.items[op["item"]]["fields"]
            if op["value"] is None:
                fields.pop(op["field"], None)
            else:
                fields[op["field"]] = op["value"]
        elif kind == K_COMMIT:
            check(op["item"] in self.items, f"{context}: commits unknown item {op['item']}")
            self.items[op["item"]]["placeholder"] = False
        elif kind in (K_RENAME_GALLERY, K_DELETE_GALLERY):
            self.galleries.setdefault(op["name"], [])
            key = (op["counter"], op["replica"])
            if kind == K_RENAME_GALLERY and key > self.titles.get(op["name"], ((0, 0), None))[0]:
                self.titles[op["name"]] = (key, op["to"])
            if key > self.deleted_galleries.get(op["name"], ((0, 0), False))[0]:
                self.deleted_galleries[op["name"]] = (key, kind == K_DELETE_GALLERY)
        self.vv[op["replica"]] = max(self.vv.get(op["replica"], 0), op["counter"] + op_size(op) - 1)
        self.applied.append(op)

    def slot_gallery(self, slot):
        for name, order in self.galleries.items():
            if slot in order:
                return name
        return None

    def visible(self, gallery):
        out = []
        for slot in self.galleries[gallery]:
            item = self.slot_item[slot]
            # An item in the Trash (field 8 set) keeps its slot, hidden.
            if self.item_slot[item][0] == slot and not self.items[item]["deleted"] and F_TRASHED not in self.items[item]["fields"]:
                out.append(item)
        return out

    def last_slot(self, gallery):
        order = self.galleries[gallery]
        return order[-1] if order else None

    def listing(self):
        """What `list --json` should show: {gallery: [(id, title, state, url, aspect, hash, bytes, mediaType)]}."""
        out = {}
        for name in self.galleries:
            if self.deleted_galleries.get(name, (None, False))[1]:
                continue
            rows = []
            for item in self.visible(name):
                f = self.items[item]["fields"]
                rows.append((op_id_text(*item), f.get(F_TITLE), "placeholder" if self.items[item]["placeholder"] else "ready",
                             f.get(F_URL), f.get(F_ASPECT), f.get(F_HASH), f.get(F_BYTES), f.get(F_MEDIA)))
            out[self.titles.get(name, (None, name))[1]] = rows
        return out


class LooseModel(Model):
    """Tracks only what this client holds (vector, ops): concurrent histories are allowed."""

    def apply(self, op):
        self.vv[op["replica"]] = max(self.vv.get(op["replica"], 0), op["counter"] + op_size(op) - 1)
        self.applied.append(op)


class Author:
    """Makes ops of one replica: each counter one above every counter this replica has seen (Lamport)."""

    def __init__(self, model, replica, signer=None):
        self.model, self.replica, self.signer = model, replica, signer

    def op(self, kind, **body):
        """The next op of this replica, sealed by `signer` (section 7.3) over the chain the model holds."""
        counter = self.model.max_counter() + 1
        gap = counter - self.model.vv.get(self.replica, 0)
        op = {"kind": kind, "counter": counter, "replica": self.replica, "gap": gap}
        op.update(body)
        if self.signer is not None:
            self.signer.seal(op, self.model.applied)
        return op

    def draft(self, title, placeholder=False, **extra):
        fields = [(F_TITLE, title)]
        order = {"url": F_URL, "aspect": F_ASPECT, "hash": F_HASH, "size": F_BYTES, "media": F_MEDIA, "origin": F_ORIGIN}
        for key, field in order.items():
            if key in extra:
                fields.append((field, extra[key]))
        return {"placeholder": placeholder, "fields": fields}
