"""Issue 25, finding 9: look-alike names. A second "Ann" could join host Ann's room, and names
took U+202E and zero-width characters (chat shows only the name). Now a name equal to a seat's,
case and surrounding spaces aside, is refused with `name_taken`; a bidirectional control or an
invisible character with `bad_request` naming it; and nothing changes in the room."""

import unittest

import harness as h


class Names(unittest.TestCase):
    def test_look_alike_names_are_refused(self):
        srv = h.shared()
        host = h.create_room(srv, ["Ann"], seats=3)[0]
        try:
            before = h.fresh_state(srv, host.room)
            with h.Client(srv, name="mallory") as m:
                for name in ("ann", "Ann", "  ANN ", "aNN\u3000"):
                    r = m.request("join", room=host.room, name=name)
                    self.assertEqual((r["type"], r.get("code")), ("error", "name_taken"), r)
                    self.assertIn("seat 0", r["message"])
                for name, what in (("Ann\u202e", "U+202E (a bidirectional control)"),
                                   ("\u202eennA", "U+202E (a bidirectional control)"),
                                   ("A\u200dnn", "U+200D (an invisible character)"),
                                   ("Ann\u2069", "U+2069 (a bidirectional control)"),
                                   ("\u200fAnn", "U+200F (a bidirectional control)")):
                    r = m.request("join", room=host.room, name=name)
                    self.assertEqual((r["type"], r.get("code")), ("error", "bad_request"), r)
                    self.assertEqual(r["message"], "name: must not contain " + what)
                # Still in no room: nothing was taken.
                r = m.request("chat", text="hi")
                self.assertEqual(r.get("code"), "not_in_room", r)
            # The room is as it was, and its host heard of none of it.
            self.assertEqual(h.fresh_state(srv, host.room), before)
            self.assertEqual([x for x in host.quiet(0.2) if x["type"] in ("delta", "state")], [])
            # A name of its own is fine, and then taken in turn.
            with h.Client(srv, name="bob") as b, h.Client(srv, name="bob2") as b2:
                b.request_ok("join", "joined", room=host.room, name="Bob")
                r = b2.request("join", room=host.room, name="BOB")
                self.assertEqual(r.get("code"), "name_taken", r)
                self.assertIn("seat 1", r["message"])
        finally:
            host.close()


if __name__ == "__main__":
    unittest.main()
