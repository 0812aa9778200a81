import json
from backgammon.server.engine_service import answer_move, answer_evaluate, answer_cube
o = "4HPwATDgc/ABMA"
m = answer_move({"position_id": o, "dice": [3, 1], "limit": 1})
print("MOVE", json.dumps(m["plays"][0]))
print("EVAL", json.dumps(answer_evaluate({"position_id": o})))
print("CUBE", json.dumps(answer_cube({"position_id": o})))
