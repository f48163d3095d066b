"""An old link's page: "Which reading?" is now "Which matrix to believe?" (a reading is one head or layer), and a
link shared before opens it, its query string kept."""
import streamlit as st

st.switch_page("pages/Which_matrix.py", query_params=st.query_params.to_dict())
